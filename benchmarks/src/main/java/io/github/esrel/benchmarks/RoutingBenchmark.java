package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.internal.RestCall;
import io.github.esrel.routing.RoutingCalculator;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.routing.RoutingSpec;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.routing.IndexRouting;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.IndexVersion;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Routing calculator throughput: the pure-Java client calculator and the plugin endpoint (a 100k-id
 * batch over HTTP), each against the server's own {@code IndexRouting} run in-process on the same ids.
 */
final class RoutingBenchmark {

    private static final int IDS = 100_000;
    private static final String INDEX = "bench-routing";

    private final ElasticsearchClient es;
    private final PrintStream out;

    RoutingBenchmark(ElasticsearchClient es, PrintStream out) {
        this.es = es;
        this.out = out;
    }

    void run() throws Exception {
        es.indices().create(c -> c.index(INDEX).settings(s -> s.numberOfShards("5").numberOfReplicas("0")));
        RoutingSpec spec = RoutingClient.of(b -> b.client(es)).spec(INDEX);
        List<String> ids = randomIds(IDS);
        RoutingCalculator client = RoutingCalculator.of(spec);
        IndexRouting server = serverRouting(spec);

        long serverNs = Timer.medianNanos(5, 15, () -> sink(ids.stream().mapToInt(id -> server.getShard(id, null)).sum()));
        long clientNs = Timer.medianNanos(5, 15, () -> sink(ids.stream().mapToInt(id -> client.shard(id)).sum()));
        List<Map<String, String>> docs = new ArrayList<>(IDS);
        ids.forEach(id -> docs.add(Map.of("id", id)));
        RestCall batch = RestCall.post("/" + INDEX + "/_routing_calc", Map.of(), Map.of("docs", docs));
        long endpointNs = Timer.medianNanos(2, 7, () -> batch.send(es));

        out.printf("%nRouting calculator, %,d random Unicode ids, %s (median of repeated rounds)%n", IDS, spec);
        out.printf("  %-58s %10s %14s %10s%n", "what", "ms/100k", "ids/second", "ratio");
        row("server IndexRouting.getShard, in-process (baseline)", serverNs, serverNs);
        row("esrel client RoutingCalculator.shard", clientNs, serverNs);
        row("plugin endpoint, one 100k-id batch over HTTP (end to end)", endpointNs, serverNs);
        out.println("  ratio = time / baseline time (lower is faster)");
        es.indices().delete(d -> d.index(INDEX));
    }

    private void row(String what, long nanos, long baseline) {
        out.printf("  %-58s %10.2f %,14.0f %9.2fx%n", what, nanos / 1e6, IDS / (nanos / 1e9), (double) nanos / baseline);
    }

    private static IndexRouting serverRouting(RoutingSpec spec) {
        LogConfigurator.configureESLogging();
        Settings settings = Settings.builder()
            .put(IndexMetadata.SETTING_VERSION_CREATED, IndexVersion.current().id())
            .put(IndexMetadata.SETTING_NUMBER_OF_SHARDS, spec.numberOfShards())
            .put(IndexMetadata.SETTING_NUMBER_OF_REPLICAS, 0)
            .build();
        return IndexRouting.fromIndexMetadata(
            IndexMetadata.builder("baseline").settings(settings).setRoutingNumShards(spec.routingNumShards()).build());
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
