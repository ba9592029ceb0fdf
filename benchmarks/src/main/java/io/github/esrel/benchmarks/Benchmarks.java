package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.testenv.EsCluster;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs the benchmarks against an embedded real node with the plugin installed. Each prints its
 * figures next to a baseline measured in the same run, as ratios: these machines are noisy, so only
 * same-run comparisons mean anything. Usage: {@code Benchmarks [all|routing|occ|locks|join|propagation|dupscan]}.
 */
public final class Benchmarks {

    /** One benchmark, run against the shared node. */
    private interface Benchmark {
        void run(ElasticsearchClient es, PrintStream out) throws Exception;
    }

    /** The node's HTTP address, for benchmarks that start child JVMs. */
    static final String HTTP_URI_PROPERTY = "esrel.bench.http";

    private static final Map<String, Benchmark> ALL = new LinkedHashMap<>();

    static {
        ALL.put("routing", (es, out) -> new RoutingBenchmark(es, out).run());
        ALL.put("occ", (es, out) -> new OccBenchmark(es, out).run());
        ALL.put("locks", (es, out) -> new LockBenchmark(es, out).run());
        ALL.put("join", (es, out) -> new JoinBenchmark(es, out).run());
        ALL.put("propagation", (es, out) -> new PropagationBenchmark(es, out).run());
        ALL.put("rename", (es, out) -> new RenameBenchmark(es, out).run());
        ALL.put("dupscan", (es, out) -> new DupScanBenchmark(es, out).run());
    }

    private Benchmarks() {}

    public static void main(String[] args) throws Exception {
        String which = args.length == 0 ? "all" : args[0];
        if (!which.equals("all") && !ALL.containsKey(which)) {
            throw new IllegalArgumentException("unknown benchmark [" + which + "]; known: all, " + String.join(", ", ALL.keySet()));
        }
        PrintStream out = System.out;
        try (EsCluster cluster = EsCluster.builder().heap("1g").build()) {
            cluster.start();
            // Benchmarks that start child JVMs (OCC's several processes) connect them here.
            System.setProperty(HTTP_URI_PROPERTY, cluster.httpUri().toString());
            out.printf("Elasticsearch %s, %d cores, JVM %s%n", cluster.version(), Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
            for (Map.Entry<String, Benchmark> b : ALL.entrySet()) {
                if (which.equals("all") || which.equals(b.getKey())) {
                    b.getValue().run(cluster.client(), out);
                }
            }
        }
    }
}
