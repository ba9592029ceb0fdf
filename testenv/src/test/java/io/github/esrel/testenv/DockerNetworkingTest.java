package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DockerNetworkingTest {

    @Test
    void shouldRunOneNodeOnADockerNetworkWhateverTheLimits() {
        assertThat(DockerNetworking.choose(1, OptionalLong.of(20_000), true)).isEqualTo(DockerNetworking.BRIDGE);
    }

    @Test
    void shouldRunAClusterOnTheHostNetworkWhereContainersCannotOpen65535Files() {
        assertThat(DockerNetworking.choose(3, OptionalLong.of(20_000), true)).isEqualTo(DockerNetworking.HOST);
    }

    @Test
    void shouldRunAClusterOnADockerNetworkWhereTheLimitAllowsItOrTheDaemonIsElsewhere() {
        assertThat(DockerNetworking.choose(3, OptionalLong.of(1_048_576), true)).isEqualTo(DockerNetworking.BRIDGE);
        assertThat(DockerNetworking.choose(3, OptionalLong.of(20_000), false)).isEqualTo(DockerNetworking.BRIDGE);
        assertThat(DockerNetworking.choose(3, OptionalLong.empty(), true)).isEqualTo(DockerNetworking.BRIDGE);
    }

    @Test
    void shouldGiveEachNodeItsOwnLoopbackAddress() {
        assertThat(DockerNetworking.transportAddress(0)).isEqualTo("127.0.0.11");
        assertThat(DockerNetworking.transportAddress(2)).isEqualTo("127.0.0.13");
    }
}
