package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Argument checks of the fault operations, which come before any request. */
class FaultOperationsTest {

    private final EsCluster notStarted = EsCluster.builder().nodes(3).build();

    @Test
    void shouldRejectAnUnknownBlockNamingTheKnownOnes() {
        assertThatThrownBy(() -> notStarted.setBlock("docs", "readonly"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'readonly'")
                .hasMessageContaining("read_only_allow_delete");
        assertThatThrownBy(() -> notStarted.removeBlock("docs", "flood_stage"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> notStarted.primaryNode("docs", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRequireAStartedCluster() {
        assertThatThrownBy(() -> notStarted.freezeNode(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> notStarted.thawNode(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> notStarted.rollingRestart(Duration.ofMinutes(1)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> notStarted.setBlock("docs", "write")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(notStarted::masterNode).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> notStarted.startNode(0, Map.of("esrel.treelock.store", "table")))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> notStarted.startNode(0, null)).isInstanceOf(NullPointerException.class);
    }
}
