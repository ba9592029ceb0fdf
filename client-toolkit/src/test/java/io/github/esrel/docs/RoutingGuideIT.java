package io.github.esrel.docs;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import io.github.esrel.doc.DocRef;
import io.github.esrel.routing.Distribution;
import io.github.esrel.routing.DuplicateId;
import io.github.esrel.routing.DuplicateIdReport;
import io.github.esrel.routing.DuplicateIdScanner;
import io.github.esrel.routing.RoutingCalculator;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.routing.RoutingFunction;
import io.github.esrel.routing.RoutingResult;
import io.github.esrel.routing.RoutingSpec;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/routing.md. */
@EsrelTest
class RoutingGuideIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    @Test
    void shouldCalculateWhereDocumentsLive(ElasticsearchClient es) throws IOException {
        es.indices().create(c -> c.index("guide-orders").settings(s -> s.numberOfShards("5")));
        List<DocRef> docs = List.of(DocRef.id("order-1").withRouting("tenant-7"), DocRef.id("order-2"));
        // tag::calculator[]
        RoutingClient routing = RoutingClient.of(b -> b.client(es)); // the plugin when installed, else cluster state
        RoutingCalculator calc = routing.calculator("guide-orders"); // one round trip, then pure Java
        int shard = calc.shard(DocRef.id("order-1").withRouting("tenant-7"));
        int[] visited = calc.searchShards("tenant-7"); // the shards a search with this routing visits
        Distribution spread = calc.distribution(docs); // documents per shard; skew() = fullest / mean
        RoutingResult checked =
                routing.calculate("guide-orders", docs); // with the plugin: on the server, with warnings

        RoutingCalculator hypothetical = RoutingCalculator.of( // no cluster: an index that does not exist yet
                RoutingSpec.of(b -> b.numberOfShards(5).function(RoutingFunction.LEGACY)));
        // end::calculator[]
        assertThat(visited).containsExactly(shard);
        assertThat(spread.total()).isEqualTo(2);
        assertThat(checked.shard(0)).isEqualTo(shard);
        assertThat(hypothetical.shard("order-2")).isBetween(0, 4);
    }

    @Test
    void shouldFindIdsThatLiveTwice(ElasticsearchClient es) throws IOException {
        es.indices().create(c -> c.index("guide-twice").settings(s -> s.numberOfShards("4")));
        RoutingCalculator calc = RoutingClient.of(b -> b.client(es)).calculator("guide-twice");
        String other = calc.routingValuesForShard((calc.shard(DocRef.id("123").withRouting("abc")) + 1) % 4, 1, "x")
                .get(0);
        // A bulk: its operations take one routing value on every client line (IndexRequest's routing does not).
        es.bulk(b -> {
            b.refresh(Refresh.True);
            for (String routing : List.of("abc", other)) {
                b.operations(op -> op.index(
                        i -> i.index("guide-twice").id("123").routing(routing).document(Map.of("n", 1))));
            }
            return b;
        });
        // tag::duplicates[]
        DuplicateIdReport report = DuplicateIdScanner.of(b -> b.client(es)).scan("guide-twice");
        for (DuplicateId d : report.duplicates()) {
            for (DuplicateId.Copy c : d.copies()) { // each copy: its routing, shard, _seq_no, _primary_term
                System.out.println(
                        d.id() + " routing=" + c.routing() + " shard=" + c.shard() + "  " + c.deleteRequest());
            }
        }
        // end::duplicates[]
        assertThat(report.clean()).isFalse();
        assertThat(report.duplicates().get(0).routings()).containsExactlyInAnyOrder("abc", other);
    }
}
