package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.Refresh;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The docker backend ({@code -Desrel.testenv.backend=docker}) runs what the local backend runs: one node with the
 * plugin, a 3-node cluster through a kill, a graceful stop, a freeze past fault detection and restarts keeping name
 * and data, and a secured node (file realm, HTTPS with testenv's CA). Run with {@code -Desrel.testenv.backend=docker}
 * (the {@code docker} group's pass does).
 */
@Tag("docker")
class DockerBackendIT {

    @Nested
    @EsrelTest
    class OneNodeWithThePlugin {

        @Cluster
        final EsCluster cluster = EsCluster.builder().build();

        @Test
        void shouldRunThePluginInAContainer() throws IOException {
            assertThat(cluster.backendName())
                    .as("run with -Desrel.testenv.backend=docker")
                    .isEqualTo("docker");
            assertThat(cluster.pluginInstalled()).isTrue();
            ElasticsearchClient es = cluster.client();
            assertThat(es.cat().plugins().plugins())
                    .extracting(p -> p.component())
                    .contains("esrel");
        }
    }

    @Nested
    @EsrelTest
    class ThreeNodes {

        @Cluster
        final EsCluster cluster = EsCluster.builder().nodes(3).plugin(false).build();

        @Test
        void shouldKeepDataThroughKillStopFreezeAndRestarts() throws Exception {
            assertThat(cluster.backendName())
                    .as("run with -Desrel.testenv.backend=docker")
                    .isEqualTo("docker");
            ElasticsearchClient es = cluster.client();
            assertThat(es.cluster().health().numberOfNodes()).isEqualTo(3);
            es.indices()
                    .create(c ->
                            c.index("kept").settings(s -> s.numberOfShards("3").numberOfReplicas("1")));
            es.index(i -> i.index("kept").id("1").document(Map.of("v", 1)).refresh(Refresh.True));
            cluster.waitForHealth("green", Duration.ofMinutes(2));

            cluster.killNode(2);
            assertThat(cluster.supportsNodeControl()).isTrue();
            assertThat(es.get(g -> g.index("kept").id("1"), Map.class).found()).isTrue();
            cluster.startNode(2);
            assertThat(es.cluster().health().numberOfNodes()).isEqualTo(3);
            // Every replica recovered before the next node goes: otherwise a shard whose only copy is on node 0 is
            // lost.
            cluster.waitForHealth("green", Duration.ofMinutes(2));

            cluster.stopNode(0);
            // Node 0 may have been the elected master: the other two elect one before they take writes.
            cluster.waitForHealth("yellow", Duration.ofMinutes(2));
            es.index(i -> i.index("kept").id("2").document(Map.of("v", 2)).refresh(Refresh.True));
            cluster.startNode(0);
            cluster.waitForHealth("green", Duration.ofMinutes(2));

            // Frozen past fault detection (3 x 10 s by default; paused containers answer nothing), then back.
            int frozen = cluster.masterNode() == 1 ? 2 : 1;
            cluster.freezeNode(frozen);
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (es.cluster().health().numberOfNodes() != 2 && System.nanoTime() < deadline) {
                Thread.sleep(500);
            }
            assertThat(es.cluster().health().numberOfNodes()).isEqualTo(2);
            cluster.thawNode(frozen);
            cluster.waitForHealth("green", Duration.ofMinutes(2));

            // Every node restarted with its name and data: both documents, every node listed under its name.
            assertThat(es.count(c -> c.index("kept")).count()).isEqualTo(2);
            assertThat(es.cat().nodes().nodes())
                    .extracting(n -> n.name())
                    .containsExactlyInAnyOrder("node-0", "node-1", "node-2");
        }
    }

    @Nested
    @EsrelTest
    class Secured {

        @Cluster
        final EsCluster cluster = EsCluster.builder()
                .plugin(false)
                .security(Security.of(
                        s -> s.role("a_reader", "{\"indices\": [{\"names\": [\"a\"], \"privileges\": [\"read\"]}]}")
                                .user("reader", "reader-password", "a_reader")))
                .build();

        @Test
        void shouldServeHttpsAndAuthorizeByRole() throws IOException {
            assertThat(cluster.backendName())
                    .as("run with -Desrel.testenv.backend=docker")
                    .isEqualTo("docker");
            assertThat(cluster.httpUri().getScheme()).isEqualTo("https");
            assertThat(cluster.caCertificate()).isPresent();
            cluster.client()
                    .index(i -> i.index("a").id("1").document(Map.of("v", 1)).refresh(Refresh.True));
            cluster.client()
                    .index(i -> i.index("b").id("1").document(Map.of("v", 1)).refresh(Refresh.True));
            ElasticsearchClient reader = cluster.clientAs("reader");
            assertThat(reader.count(c -> c.index("a")).count()).isEqualTo(1);
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> reader.count(c -> c.index("b"))))
                    .isInstanceOfSatisfying(
                            ElasticsearchException.class,
                            e -> assertThat(e.status()).isEqualTo(403));
        }
    }
}
