package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.testenv.EsCluster;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs the benchmarks against an embedded real node with the plugin installed. Each prints its figures next to a
 * baseline measured in the same run, as ratios: these machines are noisy, so only same-run comparisons mean
 * anything. Every run also writes its figures to a JSON record ({@link BenchRecord}) in {@code esrel.bench.dir}
 * (default {@code target/bench}).
 *
 * <p>Usage: {@code Benchmarks [all|routing|occ|write-log|locks|lock-scale|meters|join|propagation|propagation-shards|rename|dupscan]} (or several, comma-separated:
 * {@code occ,rename}) or {@code Benchmarks compare A.json B.json} (two records side by side, starting no node). The
 * guide's tables are generated from the records kept in {@code benchmarks/records} by {@code java tools/Docs.java
 * write}; {@code java tools/Docs.java table A.json} prints one record's.
 */
public final class Benchmarks {

    /** One benchmark, run against the shared node. */
    private interface Benchmark {
        void run(ElasticsearchClient es, PrintStream out, BenchRecord record) throws Exception;
    }

    /** The node's HTTP address, for benchmarks that start child JVMs. */
    static final String HTTP_URI_PROPERTY = "esrel.bench.http";

    private static final Map<String, Benchmark> ALL = new LinkedHashMap<>();

    static {
        ALL.put("routing", (es, out, record) -> new RoutingBenchmark(es, out, record).run());
        ALL.put("occ", (es, out, record) -> new OccBenchmark(es, out, record).run());
        // The row of several JVMs on one document alone (it also runs in occ).
        ALL.put("occ-jvms", (es, out, record) -> new OccBenchmark(es, out, record).runProcessesOnly());
        // The rows of the non-blocking form alone (they also run in occ).
        ALL.put("occ-async", (es, out, record) -> new OccBenchmark(es, out, record).runAsyncOnly());
        ALL.put("write-log", (es, out, record) -> new WriteLogBenchmark(es, out, record).run());
        ALL.put("locks", (es, out, record) -> new LockBenchmark(es, out, record).run());
        // Not part of "all": its 10,000-lock row takes minutes to fill with the one-document lock table.
        ALL.put("lock-scale", (es, out, record) -> new LockScaleBenchmark(es, out, record).run());
        // The OCC and lock rows of "with and without esrel-micrometer" alone (they also run in occ and locks).
        ALL.put("meters", (es, out, record) -> {
            new OccBenchmark(es, out, record).runMetersOnly();
            new LockBenchmark(es, out, record).runMetersOnly();
        });
        ALL.put("join", (es, out, record) -> new JoinBenchmark(es, out, record).run());
        ALL.put("propagation", (es, out, record) -> new PropagationBenchmark(es, out, record).run());
        // Starts a 3-node cluster of its own: the shared node is the wrong layout for shards on several nodes.
        ALL.put("propagation-shards", (es, out, record) -> new PropagationShardsBenchmark(out, record).run());
        ALL.put("rename", (es, out, record) -> new RenameBenchmark(es, out, record).run());
        ALL.put("dupscan", (es, out, record) -> new DupScanBenchmark(es, out, record).run());
    }

    private Benchmarks() {}

    /**
     * Runs the named benchmark(s), or compares records.
     *
     * @param args a benchmark name, several comma-separated, or {@code all}; or {@code compare A.json B.json}. One
     *     argument holding several words is split at spaces (Maven passes {@code -Desrel.bench="compare a b"} as one)
     * @throws Exception if a benchmark fails
     */
    public static void main(String[] args) throws Exception {
        String[] words = args.length == 1 ? args[0].trim().split("\\s+") : args;
        String which = words.length == 0 ? "all" : words[0];
        PrintStream out = System.out;
        if (which.equals("compare") && words.length == 3) {
            BenchCompare.print(Path.of(words[1]), Path.of(words[2]), out);
            return;
        }
        java.util.List<String> names = java.util.List.of(which.split(","));
        if (words.length != 1 || (!which.equals("all") && !ALL.keySet().containsAll(names))) {
            throw new IllegalArgumentException("unknown benchmark [" + String.join(" ", words) + "]; known: all, "
                    + String.join(", ", ALL.keySet()) + "; or: compare A.json B.json"
                    + " (a record's table: java tools/Docs.java table A.json)");
        }
        try (EsCluster cluster = EsCluster.builder().heap("1g").build()) {
            cluster.start();
            // Benchmarks that start child JVMs (OCC's several processes) connect them here.
            System.setProperty(HTTP_URI_PROPERTY, cluster.httpUri().toString());
            out.printf(
                    "Elasticsearch %s, %s, %d cores, JVM %s%n",
                    cluster.version(),
                    BenchRecord.client(),
                    Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.version"));
            BenchRecord record = new BenchRecord(cluster.version());
            for (Map.Entry<String, Benchmark> b : ALL.entrySet()) {
                // "meters" repeats rows of occ and locks, "lock-scale" takes long: not part of "all".
                if ((which.equals("all")
                                && !b.getKey().equals("meters")
                                && !b.getKey().equals("occ-jvms")
                                && !b.getKey().equals("occ-async")
                                && !b.getKey().equals("lock-scale"))
                        || names.contains(b.getKey())) {
                    b.getValue().run(cluster.client(), out, record);
                }
            }
            Path file = record.write(Path.of(System.getProperty("esrel.bench.dir", "target/bench")));
            out.printf(
                    "%nFigures recorded in %s (compare two runs: -Desrel.bench=\"compare A.json B.json\")%n",
                    file.toAbsolutePath());
        }
    }
}
