package io.github.esrel.routing;

import static io.github.esrel.routing.RoutingMatchesRealityIT.bulkIndex;
import static io.github.esrel.routing.RoutingMatchesRealityIT.createIndex;
import static io.github.esrel.routing.RoutingMatchesRealityIT.docs;
import static io.github.esrel.routing.RoutingMatchesRealityIT.realShards;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.doc.DocRef;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The routing client on a node <em>without</em> the esrel plugin, on every line CI runs: the automatic
 * source must recognise the answer this line gives for the plugin's path (8.19 answers
 * {@code GET /idx/_routing_calc} with a 405 "Incorrect HTTP method", 9.x with "no handler found") and fall
 * back to cluster state, with the shards the node really uses.
 */
@EsrelTest
class RoutingWithoutPluginIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().plugin(false).shared().build();

    private final ElasticsearchClient es = cluster.client();
    private final RoutingClient auto = RoutingClient.of(b -> b.client(es));

    @Test
    void shouldFallBackToClusterStateAndMatchReality() throws IOException {
        createIndex(es, "no-plugin-routing", Map.of("index.number_of_shards", "5"));
        List<DocRef> docs = docs(300, 20, 7);
        bulkIndex(es, "no-plugin-routing", docs);
        Map<DocRef, Integer> reality = realShards(es, "no-plugin-routing", 5);

        RoutingSpec spec = auto.spec("no-plugin-routing");
        assertThat(spec.numberOfShards()).isEqualTo(5);
        RoutingResult result = auto.calculate("no-plugin-routing", docs);
        assertThat(result.computedByServer()).isFalse();
        RoutingCalculator calculator = auto.calculator("no-plugin-routing");
        for (int i = 0; i < docs.size(); i++) {
            DocRef d = docs.get(i);
            assertThat(result.shard(i)).as("shard of %s", d).isEqualTo(reality.get(d));
            assertThat(calculator.shard(d.id(), d.routing()))
                    .as("shard of %s", d)
                    .isEqualTo(reality.get(d));
        }
    }

    @Test
    void shouldSayThePluginIsMissingWhenOnlyThePluginWillDo() throws IOException {
        createIndex(es, "no-plugin-required", Map.of("index.number_of_shards", "2"));
        RoutingClient pluginOnly = RoutingClient.of(b -> b.client(es).source(RoutingClient.Source.PLUGIN));
        for (var call : List.<Runnable>of(
                () -> pluginOnly.spec("no-plugin-required"),
                () -> pluginOnly.calculate("no-plugin-required", List.of(DocRef.id("1"))))) {
            assertThatThrownBy(call::run)
                    .isInstanceOf(RoutingException.class)
                    .hasMessageContaining("esrel plugin is not installed");
        }
    }

    @Test
    void shouldReportAMissingIndexAsNotFound() {
        assertThatThrownBy(() -> auto.spec("no-such-index"))
                .isInstanceOf(RoutingException.class)
                .satisfies(e -> assertThat(((RoutingException) e).status()).isEqualTo(404));
    }
}
