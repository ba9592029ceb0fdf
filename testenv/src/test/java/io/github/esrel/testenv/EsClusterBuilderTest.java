package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class EsClusterBuilderTest {

    @Test
    void shouldRejectInvalidValuesNamingThem() {
        EsCluster.Builder builder = EsCluster.builder();

        assertThatThrownBy(() -> builder.nodes(0)).hasMessageContaining("got 0");
        assertThatThrownBy(() -> builder.heap("512")).hasMessageContaining("'512'");
        assertThatThrownBy(() -> builder.heap("-1g")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.version("9.5")).hasMessageContaining("'9.5'");
        assertThatThrownBy(() -> builder.startTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.setting("bad key", "x")).hasMessageContaining("'bad key'");
        assertThatThrownBy(() -> builder.setting("a", null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void shouldRefuseSettingsThatTestenvManages() {
        assertThatThrownBy(() -> EsCluster.builder().setting("http.port", "9200"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'http.port' is managed by testenv");
    }

    @Test
    void shouldAcceptValidValues() {
        EsCluster.builder()
                .nodes(3)
                .heap("1g")
                .heap("768m")
                .version("8.19.21")
                .setting("node.attr.zone", "a")
                .startTimeout(Duration.ofMinutes(5))
                .plugin(false)
                .build();
    }

    @Test
    void shouldTakeTheDefaultStartTimeoutFromASystemProperty() {
        String previous = System.getProperty(TestenvProperties.START_TIMEOUT);
        try {
            System.setProperty(TestenvProperties.START_TIMEOUT, "300");
            assertThat(TestenvProperties.startTimeout()).isEqualTo(Duration.ofMinutes(5));
            System.setProperty(TestenvProperties.START_TIMEOUT, "PT10M");
            assertThat(TestenvProperties.startTimeout()).isEqualTo(Duration.ofMinutes(10));
            System.setProperty(TestenvProperties.START_TIMEOUT, "soon");
            assertThatThrownBy(EsCluster::builder)
                    .isInstanceOf(EsClusterException.class)
                    .hasMessageContaining("esrel.testenv.start-timeout=soon");
        } finally {
            if (previous == null) {
                System.clearProperty(TestenvProperties.START_TIMEOUT);
            } else {
                System.setProperty(TestenvProperties.START_TIMEOUT, previous);
            }
        }
    }

    @Test
    void shouldNotBeUsableBeforeStart() {
        EsCluster cluster = EsCluster.builder().build();

        assertThatThrownBy(cluster::client)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("call start()");
        assertThat(cluster.toString()).contains("not started");
        cluster.close(); // closing a cluster that never started is fine
    }
}
