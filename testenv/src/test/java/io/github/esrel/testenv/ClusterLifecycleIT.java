package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** Clusters used without JUnit's help, as samples and benchmarks do. */
class ClusterLifecycleIT {

    @Test
    void shouldLeaveNoProcessAndNoDataAfterClose() {
        EsCluster cluster = EsCluster.builder().plugin(false).heap("384m").build();
        Path nodeDir;
        try (cluster) {
            cluster.start();
            cluster.start(); // idempotent
            nodeDir = cluster.nodeLog(0).getParent().getParent();
            assertThat(Processes.elasticsearchUnder(nodeDir)).hasSize(1);
        }

        assertThat(Processes.elasticsearchUnder(nodeDir)).isEmpty();
        assertThat(nodeDir.getParent()).doesNotExist();
        assertThatThrownBy(cluster::client)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not started");
        cluster.close(); // idempotent
    }

    @Test
    void shouldShareOneClusterBetweenClustersAskingForTheSameSharedConfiguration() {
        EsCluster first =
                EsCluster.builder().plugin(false).heap("384m").shared().build();
        EsCluster second =
                EsCluster.builder().plugin(false).heap("384m").shared().build();
        try {
            first.start();
            second.start();
            assertThat(second.httpUris()).isEqualTo(first.httpUris());
            Path nodeDir = first.nodeLog(0).getParent().getParent();
            assertThat(Processes.elasticsearchUnder(nodeDir)).hasSize(1);
            assertThat(first.supportsNodeControl()).isFalse();
            assertThatThrownBy(() -> first.killNode(0))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("shared");

            first.close(); // lets go; the cluster keeps serving the other
            assertThat(Processes.elasticsearchUnder(nodeDir)).hasSize(1);
            assertThat(second.client().cluster().health().numberOfNodes()).isEqualTo(1);

            SharedClusters.closeAll(); // what the end of the JUnit run does
            assertThat(Processes.elasticsearchUnder(nodeDir)).isEmpty();
            assertThat(nodeDir.getParent()).doesNotExist();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            second.close();
            SharedClusters.closeAll();
        }
    }

    @Test
    void shouldFailWithTheNodeLogWhenASettingIsBad() {
        // Shared clusters of classes that ran before (and are not stopped until the run ends) keep theirs.
        List<Path> before = clusterDirs();
        EsCluster cluster = EsCluster.builder()
                .plugin(false)
                .setting("esrel.no.such.setting", "x")
                .build();

        assertThatThrownBy(cluster::start)
                .isInstanceOf(EsClusterException.class)
                .hasMessageContaining("node-0")
                .hasMessageContaining("failed to start")
                .hasMessageContaining("--- last lines of")
                .hasMessageContaining("unknown setting [esrel.no.such.setting]");

        assertThatThrownBy(cluster::client).isInstanceOf(IllegalStateException.class);
        assertThat(clusterDirs())
                .as("the failed cluster's directory is deleted")
                .isEqualTo(before);
    }

    @Test
    void shouldRelaunchANodeOnNewPortsWhenItsPortIsTaken() throws IOException {
        int taken = PortAllocator.DEFAULT.next();
        try (ServerSocket squatter = new ServerSocket()) {
            squatter.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), taken));
            // Hands out the squatted port first, as if another process had taken it after the check.
            PortAllocator ports =
                    new PortAllocator(10_000, 32_768, p -> p == taken || PortAllocator.canBind(p), firstly(taken));
            ClusterSpec spec = new ClusterSpec(
                    1,
                    false,
                    "384m",
                    Map.of(),
                    TestenvProperties.startTimeout(),
                    TestenvProperties.esVersion(),
                    false,
                    false,
                    null,
                    false);
            LocalBackend backend = new LocalBackend(spec, ports);
            try {
                backend.start();

                assertThat(backend.httpUris().get(0).getPort()).isNotEqualTo(taken);
            } finally {
                backend.close();
            }
        }
    }

    private static RandomGenerator firstly(int value) {
        RandomGenerator random = RandomGenerator.getDefault();
        return new RandomGenerator() {
            private boolean first = true;

            @Override
            public long nextLong() {
                return random.nextLong();
            }

            @Override
            public int nextInt(int origin, int bound) {
                if (first) {
                    first = false;
                    return value;
                }
                return random.nextInt(origin, bound);
            }
        };
    }

    private static List<Path> clusterDirs() {
        Path clusters = TestenvProperties.workDir().resolve("clusters");
        try (var dirs = Files.list(clusters)) {
            return dirs.toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
