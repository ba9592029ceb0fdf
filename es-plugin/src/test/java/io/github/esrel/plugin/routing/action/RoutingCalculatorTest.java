package io.github.esrel.plugin.routing.action;

import static io.github.esrel.plugin.routing.TestIndices.cluster;
import static io.github.esrel.plugin.routing.TestIndices.createdWith;
import static io.github.esrel.plugin.routing.TestIndices.expectedShard;
import static io.github.esrel.plugin.routing.TestIndices.index;
import static io.github.esrel.plugin.routing.TestIndices.randomId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.routing.RoutingCompat;
import io.github.esrel.plugin.routing.RoutingFunctionType;
import io.github.esrel.plugin.routing.RoutingParameters;
import io.github.esrel.plugin.routing.TestIndices;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.metadata.MetadataCreateIndexService;
import org.elasticsearch.cluster.routing.IndexRouting;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.IndexNotFoundException;
import org.elasticsearch.index.IndexVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class RoutingCalculatorTest {

    private static final long SEED = 20261130L;
    private final RoutingCalculator calculator = new RoutingCalculator(100_000);

    /** The server can build indices of this function here (9.5: both; 9.3: legacy only). */
    static Stream<RoutingFunctionType> serverFunctions() {
        return RoutingCompat.newIndexFunction() == RoutingFunctionType.MODULO
                ? Stream.of(RoutingFunctionType.LEGACY, RoutingFunctionType.MODULO)
                : Stream.of(RoutingFunctionType.LEGACY);
    }

    /** shards, routing_num_shards (0 = default of a new index), partition size: plain, split, shrunk, partitioned. */
    static Stream<Arguments> layouts() {
        List<Arguments> layouts = new ArrayList<>();
        serverFunctions().forEach(type -> {
            for (int[] l : new int[][] {
                {1, 0, 1},
                {2, 0, 1},
                {3, 0, 1},
                {5, 0, 1},
                {7, 0, 1},
                {12, 768, 1}, // 3 shards split to 12
                {6, 768, 1}, // 3 shards split to 6
                {1, 640, 1}, // 5 shards shrunk to 1
                {2, 1024, 1}, // 8 shards shrunk to 2
                {30, 0, 1},
                {6, 0, 3},
                {5, 0, 2},
                {8, 1024, 4},
                {1024, 0, 1}
            }) {
                layouts.add(Arguments.of(type, l[0], l[1], l[2]));
            }
        });
        return layouts.stream();
    }

    @ParameterizedTest(name = "{0} shards={1} routingShards={2} partition={3}")
    @MethodSource("layouts")
    void shouldMatchServerRoutingForRandomIds(
            RoutingFunctionType type, int shards, int routingShardsOrDefault, int partitionSize) {
        IndexVersion created = createdWith(type);
        int routingShards = routingShardsOrDefault == 0
                ? MetadataCreateIndexService.calculateNumRoutingShards(shards, created)
                : routingShardsOrDefault;
        IndexMetadata.Builder index = index("idx", created, shards, routingShards, partitionSize);
        ClusterIndices cluster = cluster(index);
        IndexMetadata imd = cluster.index("idx");
        IndexRouting server = IndexRouting.fromIndexMetadata(imd);
        Random random = new Random(SEED + shards * 31L + partitionSize);

        List<RoutingCalcDoc> docs = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String id = randomId(random);
            String routing = partitionSize > 1 || random.nextInt(3) == 0 ? randomId(random) : null;
            docs.add(new RoutingCalcDoc(id, routing));
        }
        RoutingCalcResponse batch = calculator.calculate(cluster, RoutingCalcRequest.batch("idx", docs));

        assertThat(batch.parameters())
                .isEqualTo(new RoutingParameters(
                        shards, routingShards, routingShards / shards, partitionSize, type, partitionSize > 1));
        for (int i = 0; i < docs.size(); i++) {
            RoutingCalcDoc doc = docs.get(i);
            int expected = server.getShard(doc.id(), doc.routing());
            assertThat(batch.results().get(i).shard())
                    .as("doc %s (seed %s)", doc, SEED)
                    .isEqualTo(expected);
            assertThat(expected)
                    .as("formula for %s", doc)
                    .isEqualTo(expectedShard(type, shards, routingShards, partitionSize, doc.id(), doc.routing()));
            RoutingCalcResponse single =
                    calculator.calculate(cluster, RoutingCalcRequest.doc("idx", doc.id(), doc.routing()));
            assertThat(single.shard()).isEqualTo(expected);
        }

        // The hypothetical endpoint with the same parameters gives the same answers.
        RoutingCalcResponse hypothetical = calculator.calculate(
                new HypotheticalRoutingCalcRequest(shards, routingShards, partitionSize, null, type.jsonName(), docs));
        assertThat(hypothetical.results()).isEqualTo(batch.results());
        assertThat(hypothetical.parameters()).isEqualTo(batch.parameters());
    }

    @ParameterizedTest
    @EnumSource(RoutingFunctionType.class)
    void shouldComputeHypotheticalIndicesOfEitherFunctionOnAnyServer(RoutingFunctionType type) {
        Random random = new Random(SEED);
        for (int shards : new int[] {1, 3, 5, 7, 10}) {
            for (int partitionSize : new int[] {1, 2, 3}) {
                if (partitionSize > 1 && partitionSize > shards) {
                    continue;
                }
                List<RoutingCalcDoc> docs = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    docs.add(new RoutingCalcDoc(
                            randomId(random), partitionSize > 1 || i % 2 == 0 ? randomId(random) : null));
                }
                RoutingCalcResponse response = calculator.calculate(
                        new HypotheticalRoutingCalcRequest(shards, null, partitionSize, null, type.jsonName(), docs));
                int routingShards = response.parameters().routingNumShards();
                for (DocShard result : response.results()) {
                    assertThat(result.shard())
                            .as("%s", result)
                            .isEqualTo(expectedShard(
                                    type, shards, routingShards, partitionSize, result.id(), result.routing()));
                }
            }
        }
    }

    @Test
    void shouldDefaultLikeANewIndex() {
        RoutingCalcResponse five = hypothetical(5, null, null, null, null);
        assertThat(five.parameters().routingNumShards()).isEqualTo(640);
        assertThat(five.parameters().routingFactor()).isEqualTo(128);
        assertThat(five.parameters().routingPartitionSize()).isEqualTo(1);
        assertThat(five.parameters().function()).isEqualTo(RoutingCompat.newIndexFunction());
        assertThat(hypothetical(1, null, null, null, null).parameters().routingNumShards())
                .isEqualTo(1024);
        assertThat(hypothetical(7, null, null, null, null).parameters().routingNumShards())
                .isEqualTo(896);
        assertThat(hypothetical(3, null, null, "8.19.0", null).parameters().function())
                .isEqualTo(RoutingFunctionType.LEGACY);
        assertThat(hypothetical(3, null, null, "9.3.2", null).parameters().function())
                .isEqualTo(RoutingFunctionType.LEGACY);
        assertThat(hypothetical(3, null, null, "9.4.0", null).parameters().function())
                .isEqualTo(RoutingFunctionType.MODULO);
        assertThat(hypothetical(3, null, null, "9.5.3", null).parameters().function())
                .isEqualTo(RoutingFunctionType.MODULO);
        assertThat(hypothetical(3, null, null, "9.5.3", "modulo").parameters().function())
                .isEqualTo(RoutingFunctionType.MODULO);
    }

    @Test
    void shouldRefuseInvalidHypotheticalParametersWithTheFix() {
        assertThatThrownBy(() -> hypothetical(5, null, null, "10.0.0", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index_version [10.0.0] is from a later major version");
        assertThatThrownBy(() -> hypothetical(5, null, 640, null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("routing_partition_size must be less than routing_num_shards (640), got 640");
        assertThatThrownBy(() -> hypothetical(5, 7, null, null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a factor of [7]");
        assertThatThrownBy(() -> hypothetical(5, null, null, "8.19.0", "modulo"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("contradicts index_version");
    }

    @Test
    void shouldReportSearchShardsForARoutingValue() {
        IndexVersion created = createdWith(RoutingCompat.newIndexFunction());
        ClusterIndices cluster = cluster(index("plain", created, 5, 640, 1), index("part", created, 6, 768, 3));
        IndexRouting plain = IndexRouting.fromIndexMetadata(cluster.index("plain"));
        IndexRouting part = IndexRouting.fromIndexMetadata(cluster.index("part"));

        RoutingCalcResponse r = calculator.calculate(cluster, RoutingCalcRequest.search("plain", "user-1"));
        assertThat(r.kind()).isEqualTo(RoutingCalcResponse.Kind.SEARCH);
        assertThat(r.shard()).isEqualTo(plain.getShard("any-id", "user-1"));
        assertThat(r.shards()).containsExactly(r.shard());

        RoutingCalcResponse p = calculator.calculate(cluster, RoutingCalcRequest.search("part", "user-1"));
        assertThat(p.shard()).as("depends on the id in a partitioned index").isNull();
        TreeSet<Integer> expected = new TreeSet<>();
        part.collectSearchShards("user-1", expected::add);
        assertThat(p.shards())
                .containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());

        // A search routing of "a,b" means two values, as in _search?routing=a,b.
        RoutingCalcResponse two = calculator.calculate(cluster, RoutingCalcRequest.search("plain", "a,b"));
        TreeSet<Integer> ab = new TreeSet<>();
        plain.collectSearchShards("a", ab::add);
        plain.collectSearchShards("b", ab::add);
        assertThat(two.shards())
                .containsExactly(ab.stream().mapToInt(Integer::intValue).toArray());
        assertThat(two.shard()).isEqualTo(plain.getShard("x", "a,b"));
    }

    @Test
    void shouldReportDistributionAndSkew() {
        IndexVersion created = createdWith(RoutingCompat.newIndexFunction());
        ClusterIndices cluster = cluster(index("idx", created, 4, 1024, 1));
        List<RoutingCalcDoc> docs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            docs.add(new RoutingCalcDoc("doc-" + i, null));
        }
        RoutingCalcResponse r = calculator.calculate(cluster, RoutingCalcRequest.batch("idx", docs));
        int[] distribution = r.distribution();
        assertThat(distribution).hasSize(4);
        assertThat(java.util.Arrays.stream(distribution).sum()).isEqualTo(1000);
        int max = java.util.Arrays.stream(distribution).max().orElseThrow();
        assertThat(r.skew()).isEqualTo(max / 250.0);
        assertThat(r.warnings()).isEmpty();

        RoutingCalcResponse oneShard = calculator.calculate(
                cluster,
                RoutingCalcRequest.batch("idx", List.of(new RoutingCalcDoc("a", "r"), new RoutingCalcDoc("b", "r"))));
        assertThat(oneShard.skew()).isEqualTo(4.0);
        assertThat(oneShard.distribution()).containsOnlyOnce(2).contains(0);
    }

    @Test
    void shouldWarnWhenTheSameIdLandsOnTwoShards() {
        ClusterIndices cluster = cluster(index("idx", createdWith(RoutingCompat.newIndexFunction()), 5, 640, 1));
        IndexRouting routing = IndexRouting.fromIndexMetadata(cluster.index("idx"));
        // Find two routings that put id 123 on different shards (seed 002's "abc" / "xyz" experiment).
        String other = null;
        for (int i = 0; other == null; i++) {
            if (routing.getShard("123", "r" + i) != routing.getShard("123", "abc")) {
                other = "r" + i;
            }
        }
        RoutingCalcResponse r = calculator.calculate(
                cluster,
                RoutingCalcRequest.batch(
                        "idx", List.of(new RoutingCalcDoc("123", "abc"), new RoutingCalcDoc("123", other))));
        assertThat(r.warnings())
                .singleElement()
                .asString()
                .startsWith("1 id is given with routings that put it on different shards")
                .contains("[123] with routing [abc] -> shard " + routing.getShard("123", "abc"))
                .contains("with routing [" + other + "] -> shard " + routing.getShard("123", other));
    }

    @Test
    void shouldWarnWhenSomeDocsHaveRoutingAndOthersNot() {
        ClusterIndices cluster = cluster(index("idx", createdWith(RoutingCompat.newIndexFunction()), 5, 640, 1));
        RoutingCalcResponse r = calculator.calculate(
                cluster,
                RoutingCalcRequest.batch(
                        "idx",
                        List.of(
                                new RoutingCalcDoc("1", "a"),
                                new RoutingCalcDoc("2", null),
                                new RoutingCalcDoc("3", ""))));
        assertThat(r.warnings())
                .singleElement()
                .asString()
                .startsWith("1 of 3 docs have a routing and 2 do not")
                .contains("[2, 3]");
    }

    @Test
    void shouldMeasureThatPartitioningBarelySpreadsOnLegacyIndices() {
        ClusterIndices cluster = cluster(index("idx", createdWith(RoutingFunctionType.LEGACY), 5, 640, 3));
        List<RoutingCalcDoc> docs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            docs.add(new RoutingCalcDoc("id-" + i, "tenant-" + i));
        }
        RoutingCalcResponse r = calculator.calculate(cluster, RoutingCalcRequest.batch("idx", docs));
        assertThat(r.warnings())
                .singleElement()
                .asString()
                .startsWith("routing_partition_size is 3, but ")
                .contains("of 10 routing values in this batch reach fewer than 3 shards")
                .contains("routing_factor boundary (128)");

        // The modulo function spreads every routing value over p shards: no warning.
        RoutingCalcResponse modulo =
                calculator.calculate(new HypotheticalRoutingCalcRequest(5, 640, 3, null, "modulo", docs));
        assertThat(modulo.warnings()).isEmpty();
    }

    @Test
    void shouldRequireRoutingOnPartitionedAndRoutingRequiredIndices() {
        IndexVersion created = createdWith(RoutingCompat.newIndexFunction());
        ClusterIndices cluster = cluster(
                index("part", created, 6, 768, 3),
                index("req", created, 2, 1024, 1).putMapping("{\"_doc\":{\"_routing\":{\"required\":true}}}"));
        assertThatThrownBy(() -> calculator.calculate(cluster, RoutingCalcRequest.doc("part", "1", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "routing is required for index [part] because it is partitioned (routing_partition_size 3); add ?routing=... to the request");
        assertThatThrownBy(() -> calculator.calculate(cluster, RoutingCalcRequest.doc("req", "1", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("because its mapping sets _routing.required");
        List<RoutingCalcDoc> docs = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            docs.add(new RoutingCalcDoc("d" + i, i == 0 ? "r" : null));
        }
        assertThatThrownBy(() -> calculator.calculate(cluster, RoutingCalcRequest.batch("req", docs)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "routing is required for index [req] because its mapping sets _routing.required, but 8 docs have none:"
                                + " ids [d1, d2, d3, d4, d5] and 3 more; give these docs a routing");
        assertThatThrownBy(() -> calculator.calculate(new HypotheticalRoutingCalcRequest(6, null, 2, null, null, docs)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "routing is required for this index because it is partitioned (routing_partition_size 2), but 8 docs");
    }

    @Test
    void shouldReportWhetherRoutingIsRequiredSoThatCallersCanEnforceIt() {
        IndexVersion created = createdWith(RoutingCompat.newIndexFunction());
        ClusterIndices cluster = cluster(
                index("plain", created, 2, 1024, 1),
                index("part", created, 6, 768, 3),
                index("req", created, 2, 1024, 1).putMapping("{\"_doc\":{\"_routing\":{\"required\":true}}}"));
        assertThat(calculator
                        .calculate(cluster, RoutingCalcRequest.doc("plain", "1", null))
                        .parameters()
                        .routingRequired())
                .isFalse();
        assertThat(calculator
                        .calculate(cluster, RoutingCalcRequest.search("part", "r"))
                        .parameters()
                        .routingRequired())
                .isTrue();
        assertThat(calculator
                        .calculate(cluster, RoutingCalcRequest.search("req", "r"))
                        .parameters()
                        .routingRequired())
                .isTrue();
        assertThat(calculator
                        .calculate(cluster, RoutingCalcRequest.doc("req", "1", "r"))
                        .parameters()
                        .routingRequired())
                .isTrue();
        assertThat(hypothetical(6, null, 2, null, null).parameters().routingRequired())
                .isTrue();
        assertThat(hypothetical(6, null, null, null, null).parameters().routingRequired())
                .isFalse();
    }

    @Test
    void shouldResolveAliasesAndApplyTheirRouting() {
        IndexVersion created = createdWith(RoutingCompat.newIndexFunction());
        ClusterIndices cluster = cluster(
                index("a", created, 5, 640, 1)
                        .putAlias(TestIndices.alias("one", "r1", "s1,s2"))
                        .putAlias(TestIndices.alias("pair", null, null)),
                index("b", created, 5, 640, 1).putAlias(TestIndices.alias("pair", null, null)));
        IndexRouting a = IndexRouting.fromIndexMetadata(cluster.index("a"));

        RoutingCalcResponse doc = calculator.calculate(cluster, RoutingCalcRequest.doc("one", "7", null));
        assertThat(doc.index()).isEqualTo("a");
        assertThat(doc.routing()).isEqualTo("r1");
        assertThat(doc.shard()).isEqualTo(a.getShard("7", "r1"));

        assertThatThrownBy(() -> calculator.calculate(cluster, RoutingCalcRequest.doc("one", "7", "other")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has index routing associated with it [r1]");

        RoutingCalcResponse search =
                calculator.calculate(cluster, new RoutingCalcRequest(new String[] {"one"}, null, null, null));
        assertThat(search.routing()).isEqualTo("s1,s2");
        TreeSet<Integer> expected = new TreeSet<>();
        a.collectSearchShards("s1", expected::add);
        a.collectSearchShards("s2", expected::add);
        assertThat(search.shards())
                .containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());

        RoutingCalcResponse batch =
                calculator.calculate(cluster, RoutingCalcRequest.batch("one", List.of(new RoutingCalcDoc("7", null))));
        assertThat(batch.results()).containsExactly(new DocShard("7", "r1", a.getShard("7", "r1")));

        assertThatThrownBy(() -> calculator.calculate(cluster, RoutingCalcRequest.doc("pair", "7", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "[pair] resolves to 2 indices [a, b]: routing is calculated for one index at a time; name one of them");
        assertThatThrownBy(() -> calculator.calculate(cluster, RoutingCalcRequest.doc("*", "7", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resolves to 2 indices");
        assertThat(calculator
                        .calculate(cluster, RoutingCalcRequest.doc("b*", "7", null))
                        .index())
                .isEqualTo("b");
    }

    @Test
    void shouldReportUnknownIndicesAsNotFound() {
        ClusterIndices cluster = cluster(index("a", createdWith(RoutingCompat.newIndexFunction()), 1, 1024, 1));
        assertThatThrownBy(() -> calculator.calculate(cluster, RoutingCalcRequest.doc("missing", "1", null)))
                .isInstanceOf(IndexNotFoundException.class);
        assertThatThrownBy(() -> calculator.calculate(cluster, RoutingCalcRequest.doc("nothing-*", "1", null)))
                .isInstanceOf(IndexNotFoundException.class);
        assertThatThrownBy(() ->
                        calculator.calculate(cluster, new RoutingCalcRequest(new String[] {"a"}, null, null, null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("either id or routing is required");
    }

    @Test
    void shouldRefuseIndicesThatRouteBySourceFields() {
        IndexMetadata.Builder tsdb = IndexMetadata.builder("metrics")
                .settings(Settings.builder()
                        .put(IndexMetadata.SETTING_VERSION_CREATED, IndexVersion.current())
                        .put(IndexMetadata.SETTING_NUMBER_OF_SHARDS, 2)
                        .put(IndexMetadata.SETTING_NUMBER_OF_REPLICAS, 0)
                        .put("index.mode", "time_series")
                        .putList("index.routing_path", "host")
                        .put("index.time_series.start_time", "2026-01-01T00:00:00Z")
                        .put("index.time_series.end_time", "2027-01-01T00:00:00Z"))
                .setRoutingNumShards(1024);
        ClusterIndices cluster = cluster(tsdb);
        assertThatThrownBy(() -> calculator.calculate(cluster, RoutingCalcRequest.doc("metrics", "1", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("routes documents by the values of fields in their source")
                .hasMessageContaining("index.routing_path [host]")
                .hasMessageContaining("the shard depends on the document source");
    }

    @Test
    void shouldRefuseBatchesOverTheLimit() {
        RoutingCalculator small = new RoutingCalculator(2);
        ClusterIndices cluster = cluster(index("a", createdWith(RoutingCompat.newIndexFunction()), 1, 1024, 1));
        List<RoutingCalcDoc> three =
                List.of(new RoutingCalcDoc("1", null), new RoutingCalcDoc("2", null), new RoutingCalcDoc("3", null));
        assertThatThrownBy(() -> small.calculate(cluster, RoutingCalcRequest.batch("a", three)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "docs must hold at most 2 entries (node setting [esrel.routing.max_batch_docs]); split the batch or raise the setting");
        assertThatThrownBy(() -> small.calculate(new HypotheticalRoutingCalcRequest(1, null, null, null, null, three)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 2 entries");
        assertThat(RoutingCalculator.fromSettings(Settings.EMPTY).maxBatchDocs())
                .isEqualTo(100_000);
    }

    @Test
    void shouldHandleABenchmarkSizedBatchQuickly() {
        ClusterIndices cluster = cluster(index("a", createdWith(RoutingCompat.newIndexFunction()), 5, 640, 1));
        List<RoutingCalcDoc> docs = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            docs.add(new RoutingCalcDoc("id-" + i, null));
        }
        long start = System.nanoTime();
        RoutingCalcResponse r = calculator.calculate(cluster, RoutingCalcRequest.batch("a", docs));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(r.results()).hasSize(100_000);
        assertThat(millis).as("100k docs took %d ms", millis).isLessThan(5_000);
    }

    private RoutingCalcResponse hypothetical(
            int shards, Integer routingShards, Integer partitionSize, String version, String function) {
        HypotheticalRoutingCalcRequest request = new HypotheticalRoutingCalcRequest(
                shards,
                routingShards,
                partitionSize,
                version,
                function,
                List.of(new RoutingCalcDoc("1", partitionSize != null && partitionSize > 1 ? "r" : null)));
        return calculator.calculate(request);
    }
}
