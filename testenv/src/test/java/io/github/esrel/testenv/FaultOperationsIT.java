package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.Refresh;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.elasticsearch.client.Request;
import org.elasticsearch.client.Response;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The fault operations on one 3-node cluster: where primaries and the master are, index blocks, a
 * node frozen until fault detection removes it and thawed back in, and a frozen node killed.
 */
@EsrelTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultOperationsIT {

    private static final Duration PATIENCE = Duration.ofMinutes(3);

    @Cluster
    static final EsCluster cluster = faultCluster().build();

    /**
     * Shared with node control, so that the last test can check how it is handed on; no other class asks
     * for this configuration. Fault detection quicker than the default (3 checks of 10 s) keeps the
     * freeze short.
     */
    private static EsCluster.Builder faultCluster() {
        return EsCluster.builder()
                .nodes(3)
                .plugin(false)
                .sharedWithNodeControl()
                .setting("cluster.fault_detection.follower_check.timeout", "3s")
                .setting("cluster.fault_detection.follower_check.retry_count", "2")
                .setting("cluster.fault_detection.leader_check.timeout", "3s")
                .setting("cluster.fault_detection.leader_check.retry_count", "2");
    }

    @Test
    @Order(1)
    void shouldNameTheNodesHoldingThePrimaryAndTheMasterAsTheCatApiDoes() throws IOException {
        ElasticsearchClient es = cluster.client();
        es.indices()
                .create(c -> c.index("docs").settings(s -> s.numberOfShards("2").numberOfReplicas("1")));
        cluster.waitForHealth("green", PATIENCE);

        for (JsonNode copy : cat("/_cat/shards/docs?h=shard,prirep,node")) {
            if ("p".equals(copy.path("prirep").asText())) {
                assertThat("node-"
                                + cluster.primaryNode("docs", copy.path("shard").asInt()))
                        .isEqualTo(copy.path("node").asText());
            }
        }
        assertThat("node-" + cluster.masterNode())
                .isEqualTo(cat("/_cat/master?h=node").get(0).path("node").asText());
        assertThatThrownBy(() -> cluster.primaryNode("docs", 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cluster.primaryNode("missing", 0))
                .isInstanceOf(EsClusterException.class)
                .hasMessageContaining("[missing] does not exist");
    }

    @Test
    @Order(2)
    void shouldBlockWritesUntilTheBlockIsLifted() throws IOException {
        for (String block : List.of("write", "read_only", "read_only_allow_delete")) {
            cluster.setBlock("docs", block);

            assertThatThrownBy(() -> index(cluster.client(), "blocked-" + block))
                    .as(block)
                    .isInstanceOfSatisfying(
                            ElasticsearchException.class,
                            e -> assertThat(e.error().type()).isEqualTo("cluster_block_exception"));

            cluster.removeBlock("docs", block);

            index(cluster.client(), "after-" + block);
        }
        assertThat(cluster.client().count(c -> c.index("docs")).count()).isEqualTo(3);
    }

    @Test
    @Order(3)
    void shouldFreezeANodeUntilFaultDetectionRemovesItAndThawItBackIn() throws Exception {
        int victim = (cluster.masterNode() + 1) % 3; // a follower: the master's checks remove it
        List<URI> others = new ArrayList<>(cluster.httpUris());
        others.remove(victim);
        ElasticsearchClient survivors = Clients.connect(others);
        try {
            cluster.freezeNode(victim);

            assertThat(processStates(victim)).containsOnly("T");
            awaitNodes(survivors, 2);
            index(survivors, "while-frozen");

            cluster.thawNode(victim);

            assertThat(processStates(victim)).doesNotContain("T");
            awaitNodes(survivors, 3);
            cluster.waitForHealth("green", PATIENCE);
            ElasticsearchClient thawed =
                    Clients.connect(List.of(cluster.httpUris().get(victim)));
            try {
                assertThat(thawed.count(c -> c.index("docs")).count()).isEqualTo(4);
            } finally {
                thawed._transport().close();
            }
        } finally {
            survivors._transport().close();
        }
    }

    /** What close() and the reaper do to every node, here to a frozen one. */
    @Test
    @Order(4)
    void shouldKillAFrozenNode() {
        int victim = (cluster.masterNode() + 1) % 3;
        cluster.freezeNode(victim);
        assertThat(processStates(victim)).containsOnly("T");

        cluster.killNode(victim);

        assertThat(Processes.elasticsearchUnder(nodeDir(victim))).isEmpty();
    }

    /**
     * A class that lets go of a shared cluster with node control hands it on whole: the node killed
     * above started again, a node left frozen thawed, green, and the data of the classes before kept.
     */
    @Test
    @Order(5)
    void shouldHandASharedClusterOnWithEveryNodeBackAndItsDataKept() throws IOException {
        List<URI> before = cluster.httpUris();
        int master = cluster.masterNode();
        Path killed = nodeDir((master + 1) % 3); // by the test before
        Path frozen = nodeDir((master + 2) % 3);
        assertThat(Processes.elasticsearchUnder(killed)).isEmpty();
        cluster.freezeNode((master + 2) % 3);

        cluster.close(); // as the extension does after the class

        try (EsCluster next = faultCluster().build()) {
            next.start();
            assertThat(next.supportsNodeControl()).isTrue();
            assertThat(next.client().cluster().health().numberOfNodes()).isEqualTo(3);
            assertThat(next.client().cluster().health().status().jsonValue()).isEqualTo("green");
            assertThat(Processes.elasticsearchUnder(killed)).hasSize(1);
            assertThat(processStates(frozen)).isNotEmpty().doesNotContain("T");
            assertThat(next.client().count(c -> c.index("docs")).count())
                    .as("the same cluster, not a fresh one")
                    .isEqualTo(4);
            assertThat(next.httpUris()).hasSameSizeAs(before);
        } finally {
            // No other class asks for this cluster: stop it now rather than idle three nodes until the run ends.
            SharedClusters.closeAll();
        }
    }

    /** A cat API's rows, read with the low-level client: the cat types differ between client lines. */
    private static JsonNode cat(String path) throws IOException {
        Response response = cluster.restClient().performRequest(new Request("GET", path + "&format=json"));
        return new ObjectMapper().readTree(response.getEntity().getContent());
    }

    private static void index(ElasticsearchClient es, String id) throws IOException {
        es.index(i -> i.index("docs").id(id).document(Map.of("id", id)).refresh(Refresh.True));
    }

    private static void awaitNodes(ElasticsearchClient es, int nodes) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (es.cluster().health().numberOfNodes() != nodes) {
            assertThat(System.nanoTime())
                    .as("cluster has %d nodes in time", nodes)
                    .isLessThan(deadline);
            Thread.sleep(250);
        }
    }

    /** The scheduler state ({@code R}, {@code S}, {@code T} for stopped...) of the node's process. */
    private static List<String> processStates(int node) {
        return processStates(nodeDir(node));
    }

    private static List<String> processStates(Path nodeDir) {
        return Processes.elasticsearchUnder(nodeDir).stream()
                .map(p -> {
                    try {
                        String stat = Files.readString(Path.of("/proc", p.pid() + "", "stat"));
                        return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
                    } catch (IOException e) {
                        return "gone";
                    }
                })
                .toList();
    }

    private static Path nodeDir(int node) {
        return cluster.nodeLog(node).getParent().getParent();
    }
}
