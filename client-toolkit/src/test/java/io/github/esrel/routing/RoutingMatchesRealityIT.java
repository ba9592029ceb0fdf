package io.github.esrel.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.HealthStatus;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import io.github.esrel.doc.DocRef;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Indexes documents into real indices, asks each shard which documents it really holds
 * ({@code preference=_shards:N}), and checks that the client calculator (parameters from the plugin
 * and from cluster state) and the plugin's batch endpoint agree with reality for every document.
 */
@EsrelTest
class RoutingMatchesRealityIT {

    private static final int DOCS = 1200;

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final ElasticsearchClient es = cluster.client();
    private final RoutingClient viaPlugin = RoutingClient.of(b -> b.client(es).source(RoutingClient.Source.PLUGIN));
    private final RoutingClient viaClusterState =
            RoutingClient.of(b -> b.client(es).source(RoutingClient.Source.CLUSTER_STATE));

    @Test
    void shouldMatchRealityWithDefaultRouting() throws IOException {
        createIndex(es, "default-routing", Map.of("index.number_of_shards", "5"));
        assertAgreesWithReality("default-routing", docs(DOCS, 0, 1));
    }

    @Test
    void shouldMatchRealityWithCustomRouting() throws IOException {
        createIndex(es, "custom-routing", Map.of("index.number_of_shards", "7"));
        assertAgreesWithReality("custom-routing", docs(DOCS, 40, 2));
    }

    @Test
    void shouldMatchRealityOnAPartitionedIndex() throws IOException {
        // Elasticsearch only allows a routing partition when the mapping requires routing.
        es.indices()
                .create(c -> c.index("partitioned")
                        .settings(
                                s -> s.numberOfShards("6").numberOfReplicas("0").routingPartitionSize(3))
                        .mappings(m -> m.routing(r -> r.required(true))));
        assertAgreesWithReality("partitioned", docs(DOCS, 15, 3));
    }

    @Test
    void shouldMatchRealityOnASplitIndex() throws IOException {
        createIndex(es, "split-source", Map.of("index.number_of_shards", "3"));
        List<DocRef> docs = docs(DOCS, 25, 4);
        bulkIndex(es, "split-source", docs);
        es.indices().putSettings(p -> p.index("split-source").settings(s -> s.blocks(b -> b.write(true))));
        es.indices()
                .split(s -> s.index("split-source")
                        .target("split-target")
                        .settings("index.number_of_shards", co.elastic.clients.json.JsonData.of(12))
                        // 8.x gives a split target one replica whatever the source has: none, so one node turns it
                        // green.
                        .settings("index.number_of_replicas", co.elastic.clients.json.JsonData.of(0))
                        .settings("index.blocks.write", co.elastic.clients.json.JsonData.of(false)));
        es.cluster()
                .health(h -> h.index("split-target")
                        .waitForStatus(HealthStatus.Green)
                        .timeout(t -> t.time("60s")));
        es.indices().refresh(r -> r.index("split-target"));

        RoutingSpec spec = viaPlugin.spec("split-target");
        assertThat(spec.numberOfShards()).isEqualTo(12);
        assertThat(spec.routingNumShards())
                .as("a split keeps the source's routing_num_shards")
                .isEqualTo(viaPlugin.spec("split-source").routingNumShards());
        assertMatches("split-target", docs, realShards(es, "split-target", 12));
    }

    /** Both sources know that the mapping requires routing, and a calculator from either refuses a doc without. */
    @Test
    void shouldRefuseADocWithoutRoutingOnARoutingRequiredIndexWhateverTheSource() throws IOException {
        es.indices()
                .create(c -> c.index("calc-routing-required")
                        .settings(s -> s.numberOfShards("3").numberOfReplicas("0"))
                        .mappings(m -> m.routing(r -> r.required(true))));
        for (RoutingClient source : List.of(viaPlugin, viaClusterState)) {
            RoutingCalculator calculator = source.calculator("calc-routing-required");
            assertThat(calculator.spec().routingRequired())
                    .as("routing_required of %s", source)
                    .isTrue();
            assertThatThrownBy(() -> calculator.shard("1", null))
                    .as("a doc without routing, %s", source)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("routing");
            assertThat(calculator.shard("1", "tenant-1")).isBetween(0, 2);
        }
    }

    @Test
    void shouldReportMissingIndexAsNotFound() {
        assertThatThrownBy(() -> viaPlugin.spec("no-such-index"))
                .isInstanceOf(RoutingException.class)
                .satisfies(e -> assertThat(((RoutingException) e).status()).isEqualTo(404));
        assertThatThrownBy(() -> viaClusterState.spec("no-such-index"))
                .isInstanceOf(RoutingException.class)
                .satisfies(e -> assertThat(((RoutingException) e).status()).isEqualTo(404));
    }

    private void assertAgreesWithReality(String index, List<DocRef> docs) throws IOException {
        bulkIndex(es, index, docs);
        RoutingSpec spec = viaPlugin.spec(index);
        assertMatches(index, docs, realShards(es, index, spec.numberOfShards()));
    }

    private void assertMatches(String index, List<DocRef> docs, Map<DocRef, Integer> reality) {
        assertThat(reality).as("documents found on the shards").hasSize(docs.size());
        RoutingSpec fromPlugin = viaPlugin.spec(index);
        RoutingSpec fromState = viaClusterState.spec(index);
        assertThat(fromState.numberOfShards()).isEqualTo(fromPlugin.numberOfShards());
        assertThat(fromState.routingNumShards()).isEqualTo(fromPlugin.routingNumShards());
        assertThat(fromState.routingPartitionSize()).isEqualTo(fromPlugin.routingPartitionSize());
        assertThat(fromState.function())
                .as("function from index.version.created")
                .isEqualTo(fromPlugin.function());
        assertThat(fromPlugin.routingRequired())
                .as("routing_required from the plugin")
                .isEqualTo(fromState.routingRequired());

        RoutingCalculator local = RoutingCalculator.of(fromState);
        RoutingResult server = viaPlugin.calculate(index, docs);
        assertThat(server.computedByServer()).isTrue();
        long[] expectedCounts = new long[fromPlugin.numberOfShards()];
        for (int i = 0; i < docs.size(); i++) {
            DocRef d = docs.get(i);
            int real = reality.get(d);
            assertThat(local.shard(d.id(), d.routing()))
                    .as("client calculator for %s", d)
                    .isEqualTo(real);
            assertThat(server.shard(i)).as("plugin batch endpoint for %s", d).isEqualTo(real);
            expectedCounts[real]++;
            if (d.routing() != null) {
                assertThat(local.searchShards(d.routing()))
                        .as("search shards of %s", d.routing())
                        .contains(real);
            }
        }
        assertThat(server.distribution().counts()).isEqualTo(expectedCounts);
    }

    /** Where each document really is: one search per shard, restricted to that shard. */
    static Map<DocRef, Integer> realShards(ElasticsearchClient es, String index, int shards) throws IOException {
        Map<DocRef, Integer> where = new HashMap<>();
        for (int shard = 0; shard < shards; shard++) {
            final int s = shard;
            List<Hit<Void>> hits = es.search(
                            r -> r.index(index)
                                    .preference("_shards:" + s)
                                    .size(10_000)
                                    .source(src -> src.fetch(false))
                                    .query(q -> q.matchAll(m -> m)),
                            Void.class)
                    .hits()
                    .hits();
            for (Hit<Void> hit : hits) {
                Integer previous = where.put(DocRef.id(hit.id()).withRouting(hit.routing()), s);
                assertThat(previous)
                        .as("document %s found on two shards", hit.id())
                        .isNull();
            }
        }
        return where;
    }

    static void createIndex(ElasticsearchClient es, String index, Map<String, String> settings) throws IOException {
        es.indices()
                .create(c -> c.index(index).settings(s -> {
                    settings.forEach((k, v) ->
                            s.otherSettings(k.replaceFirst("^index\\.", ""), co.elastic.clients.json.JsonData.of(v)));
                    return s.numberOfReplicas("0");
                }));
    }

    static void bulkIndex(ElasticsearchClient es, String index, List<DocRef> docs) throws IOException {
        BulkRequest.Builder bulk =
                new BulkRequest.Builder().refresh(co.elastic.clients.elasticsearch._types.Refresh.True);
        for (DocRef d : docs) {
            bulk.operations(op ->
                    op.index(i -> i.index(index).id(d.id()).routing(d.routing()).document(Map.of("n", 1))));
        }
        BulkResponse response = es.bulk(bulk.build());
        assertThat(response.errors())
                .as(
                        "bulk errors: %s",
                        response.items().stream()
                                .filter(i -> i.error() != null)
                                .map(i -> i.error().reason())
                                .findFirst()
                                .orElse(""))
                .isFalse();
    }

    /**
     * {@code count} documents with random Unicode ids (surrogate pairs included); with
     * {@code tenants > 0} each carries one of that many routing values.
     */
    static List<DocRef> docs(int count, int tenants, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<String> ids = RandomStrings.unicode(count, seed).stream()
                .map(RoutingMatchesRealityIT::validId)
                .toList();
        List<DocRef> docs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String routing = tenants == 0 ? null : "tenant-" + random.nextInt(tenants) + "-é😀";
            docs.add(DocRef.id(ids.get(i) + "#" + i).withRouting(routing));
        }
        return docs;
    }

    /** Lone surrogates cannot travel through JSON as UTF-8; keep every other kind of character. */
    private static String validId(String s) {
        StringBuilder sb = new StringBuilder();
        s.codePoints()
                .filter(cp -> !Character.isSurrogate((char) cp) || cp > 0xFFFF)
                .forEach(sb::appendCodePoint);
        return sb.length() == 0 ? "x" : sb.toString();
    }
}
