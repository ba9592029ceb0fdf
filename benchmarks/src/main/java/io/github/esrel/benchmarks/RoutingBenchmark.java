package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.SearchShardsResponse;
import io.github.esrel.doc.DocRef;
import io.github.esrel.routing.RoutingCalculator;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.routing.RoutingSpec;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.routing.IndexRouting;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.IndexVersion;

/**
 * Routing calculator throughput: the pure-Java client calculator and the plugin endpoint (a 100k-id
 * batch over HTTP), each against the server's own {@code IndexRouting} run in-process on the same ids; and
 * Elasticsearch's own answer without esrel, {@code _search_shards} per routing value (one request per id, so
 * it is timed on a sample and scaled; its answers are checked against the calculator's).
 */
final class RoutingBenchmark {

    private static final int IDS = 100_000;
    private static final String INDEX = "bench-routing";
    /** _search_shards answers one routing value per request (~1 ms): a sample, scaled to {@link #IDS}. */
    private static final int SEARCH_SHARDS_SAMPLE = 2_000;

    private final ElasticsearchClient es;
    private final PrintStream out;
    private final BenchRecord record;

    RoutingBenchmark(ElasticsearchClient es, PrintStream out, BenchRecord record) {
        this.es = es;
        this.out = out;
        this.record = record;
    }

    void run() throws Exception {
        es.indices()
                .create(c -> c.index(INDEX).settings(s -> s.numberOfShards("5").numberOfReplicas("0")));
        RoutingSpec spec = RoutingClient.of(b -> b.client(es)).spec(INDEX);
        List<String> ids = randomIds(IDS);
        RoutingCalculator client = RoutingCalculator.of(spec);
        IndexRouting serverRouting = serverRouting(spec);

        Timer.Sample server = Timer.measure(
                5,
                15,
                () -> sink(ids.stream()
                        .mapToInt(id -> serverRouting.getShard(id, null))
                        .sum()));
        Timer.Sample calc = Timer.measure(
                5, 15, () -> sink(ids.stream().mapToInt(id -> client.shard(id)).sum()));
        List<DocRef> docs = new ArrayList<>(IDS);
        ids.forEach(id -> docs.add(DocRef.id(id)));
        // The public API: with the plugin, one batch to its endpoint (POST /<index>/_routing_calc), answered whole.
        RoutingClient routing = RoutingClient.of(b -> b.client(es));
        Timer.Sample endpoint =
                Timer.measure(2, 7, () -> sink(routing.calculate(INDEX, docs).shards().length));
        List<String> sample = ids.subList(0, SEARCH_SHARDS_SAMPLE);
        Timer.Sample searchShards = Timer.measure(1, 3, () -> searchShards(sample, client));
        // Scaled from the sample to IDS: one request per id, so the time grows linearly with the ids.
        Timer.Sample searchShardsAll =
                new Timer.Sample(searchShards.medianNanos() * (IDS / SEARCH_SHARDS_SAMPLE), searchShards.spread());

        out.printf("%nRouting calculator, %,d random Unicode ids, %s (median of repeated rounds)%n", IDS, spec);
        out.printf("  %-66s %10s %14s %10s%n", "what", "ms/100k", "ids/second", "ratio");
        row("server IndexRouting.getShard, in-process (baseline)", server, server);
        row("esrel client RoutingCalculator.shard", calc, server);
        row("plugin endpoint, one 100k-id batch over HTTP (end to end)", endpoint, server);
        row(
                "_search_shards?routing=<id>, one request per id (" + SEARCH_SHARDS_SAMPLE + " timed, scaled)",
                searchShardsAll,
                server);
        out.printf(
                "  ratio = time / baseline time (lower is faster); _search_shards vs the plugin's batch: %.0fx the time."
                        + " _search_shards names the shards a routing value can reach: on an index with routing_partition_size > 1"
                        + " that is a set of shards, so it cannot tell one document's shard at all; the calculator and the plugin"
                        + " can (they hash the _id too).%n",
                (double) searchShardsAll.medianNanos() / endpoint.medianNanos());
        es.indices().delete(d -> d.index(INDEX));
    }

    /** Elasticsearch's answer without esrel: the shard of each id by _search_shards, checked against the calculator. */
    private void searchShards(List<String> sample, RoutingCalculator client) throws Exception {
        for (String id : sample) {
            SearchShardsResponse r = es.searchShards(s -> s.index(INDEX).routing(id));
            int shard = r.shards().get(0).get(0).shard();
            if (r.shards().size() != 1 || shard != client.shard(id)) {
                throw new IllegalStateException(
                        "_search_shards put [" + id + "] on " + r.shards() + ", the calculator on " + client.shard(id));
            }
        }
    }

    private void row(String what, Timer.Sample t, Timer.Sample baseline) {
        double ratio = (double) t.medianNanos() / baseline.medianNanos();
        out.printf(
                "  %-66s %10.2f %,14.0f %9.2fx%n", what, t.medianNanos() / 1e6, IDS / (t.medianNanos() / 1e9), ratio);
        record.add(
                "routing",
                what,
                t.medianNanos() / 1e6,
                "ms/100k ids",
                t == baseline ? Double.NaN : ratio,
                BenchRecord.Better.LOWER,
                Math.max(t.spread(), baseline.spread()));
    }

    private static IndexRouting serverRouting(RoutingSpec spec) {
        LogConfigurator.configureESLogging();
        Settings settings = Settings.builder()
                .put(
                        IndexMetadata.SETTING_VERSION_CREATED,
                        IndexVersion.current().id())
                .put(IndexMetadata.SETTING_NUMBER_OF_SHARDS, spec.numberOfShards())
                .put(IndexMetadata.SETTING_NUMBER_OF_REPLICAS, 0)
                .build();
        return IndexRouting.fromIndexMetadata(IndexMetadata.builder("baseline")
                .settings(settings)
                .setRoutingNumShards(spec.routingNumShards())
                .build());
    }

    private static List<String> randomIds(int count) {
        SplittableRandom r = new SplittableRandom(1);
        List<String> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            StringBuilder sb = new StringBuilder();
            int len = 8 + r.nextInt(24);
            for (int j = 0; j < len; j++) {
                sb.append(r.nextInt(4) == 0 ? (char) (0xA0 + r.nextInt(0x2000)) : (char) ('a' + r.nextInt(26)));
            }
            ids.add(sb.toString());
        }
        return ids;
    }

    private static volatile int blackhole;

    private static void sink(int v) {
        blackhole = v;
    }
}
