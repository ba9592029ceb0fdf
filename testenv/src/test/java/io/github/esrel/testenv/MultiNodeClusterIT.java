package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.HealthStatus;
import co.elastic.clients.elasticsearch._types.Refresh;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** One 3-node cluster taken through a crash and a graceful stop of single nodes, in order. */
@EsrelTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiNodeClusterIT {

    // Generous: waiting ends as soon as the status is reached, and a shared machine can be slow.
    private static final Duration HEALTH_TIMEOUT = Duration.ofMinutes(5);

    // tag::cluster[]
    @Cluster // static: one cluster for the class's tests; plugin(false): a cluster without esrel's plugin
    static final EsCluster cluster = EsCluster.builder().nodes(3).plugin(false).build();
    // end::cluster[]

    @Test
    @Order(1)
    void shouldFormAGreenClusterWithAReplicatedIndex() throws IOException {
        ElasticsearchClient client = cluster.client();
        // 3 shards x 2 copies on 3 nodes: every node holds copies, so losing any turns it yellow.
        client.indices()
                .create(c -> c.index("docs").settings(s -> s.numberOfShards("3").numberOfReplicas("1")));
        cluster.waitForHealth("green", HEALTH_TIMEOUT);

        assertThat(client.cluster().health().numberOfNodes()).isEqualTo(3);
        assertThat(cluster.httpUris()).hasSize(3).doesNotHaveDuplicates();
        index("before");
    }

    @Test
    @Order(2)
    void shouldServeReadsAndWritesAfterANodeIsKilled() throws IOException {
        // tag::kill[]
        cluster.killNode(2); // kill -9; stopNode, startNode, freezeNode, thawNode, rollingRestart alike
        // hide::begin[]
        assertThat(Processes.elasticsearchUnder(cluster.nodeLog(2).getParent().getParent()))
                .isEmpty();
        // hide::end[]
        cluster.waitForHealth("yellow", HEALTH_TIMEOUT);
        // end::kill[]
        assertThat(cluster.client().cluster().health(h -> h.waitForNodes("2")).status())
                .isEqualTo(HealthStatus.Yellow);
        index("while-down");
        assertThat(count()).isEqualTo(2);
    }

    @Test
    @Order(3)
    void shouldBringAKilledNodeBackWithItsData() throws IOException {
        cluster.startNode(2);

        cluster.waitForHealth("green", HEALTH_TIMEOUT);
        assertThat(cluster.client().cluster().health().numberOfNodes()).isEqualTo(3);
        assertThat(count()).isEqualTo(2);
    }

    @Test
    @Order(4)
    void shouldStopAndRestartANodeGracefully() throws IOException {
        cluster.stopNode(0);

        assertThat(Processes.elasticsearchUnder(cluster.nodeLog(0).getParent().getParent()))
                .isEmpty();
        cluster.waitForHealth("yellow", HEALTH_TIMEOUT);
        index("while-stopped");

        // Back with a setting of its own (a node attribute, read only at startup), as an upgrade changes one.
        cluster.startNode(0, Map.of("node.attr.restarted", "with-settings"));

        // startNode returns once the node has joined; green (replica recovery) was covered above.
        assertThat(cluster.client().cluster().health().numberOfNodes()).isEqualTo(3);
        assertThat(count()).isEqualTo(3);
        Map<String, String> restartedAttribute = new TreeMap<>();
        // _cat/nodeattrs, not nodes info: elasticsearch-java 9.5.3 fails to decode 9.5.3's full nodes info.
        cluster.client().cat().nodeattrs().nodeAttributes().stream()
                .filter(a -> "restarted".equals(a.attr()))
                .forEach(a -> restartedAttribute.put(a.node(), a.value()));
        assertThat(restartedAttribute).containsExactly(Map.entry("node-0", "with-settings"));
    }

    private static void index(String id) throws IOException {
        ObjectNode doc = new ObjectMapper().createObjectNode().put("id", id);
        cluster.client().index(i -> i.index("docs").id(id).document(doc).refresh(Refresh.True));
    }

    private static long count() throws IOException {
        return cluster.client().count(c -> c.index("docs")).count();
    }
}
