package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.JsonData;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.esrel.lock.PluginTreeLocks;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.EsCluster;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tree locks at scale: what one acquire + release of an exclusive lock costs in a namespace that already holds
 * 0, 1,000, 10,000 and 100,000 ({@code -Desrel.bench.lock-scale.max} lowers it) shared locks, each row in a
 * namespace of its own, against the empty namespace measured in the same run; first on the benchmark's node (the
 * default store, a document per grant), then, as the baseline, on a node of its own started with
 * {@code esrel.treelock.store: table} (the one-document table every change rewrites), up to 10,000 held locks
 * ({@code -Desrel.bench.lock-scale.table-max}; 0 skips it), beyond which it is impractical. Per row: latency p50 and p90 (one
 * caller, sequential), throughput with 1 and {@value #CALLERS} callers (each on its own leaf), and the bytes the
 * node's shard-level bulk requests carried per acquire + release: every write to the lock index is one, and nothing
 * else writes during a measurement (node-level {@code indices.bulk.total_size_in_bytes}, before and after).
 * The held locks are taken beforehand by {@value #CALLERS} callers on {@code /held/<i>} through the REST API, with a
 * lease longer than the run, and left to expire. On the default store, the same callers then spread over 1, 4 and
 * 16 namespaces: what one namespace's serialized rounds cost.
 */
final class LockScaleBenchmark {

    private static final String INDEX_PREFIX = "bench-lock-scale-";
    private static final int CALLERS = 16;
    private static final int WARMUP = 20;
    private static final int LATENCY_ROUNDS = 200;
    private static final int ONE_CALLER_OPS = 200;
    private static final int OPS_PER_CALLER = 40;
    private static final int SPREAD_OPS_PER_CALLER = 120;
    private static final int LISTING_PAGE = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MAX_LOCKS_SETTING = "esrel.treelock.max_locks_per_index";

    private final ElasticsearchClient defaultNode;
    private final PrintStream out;
    private final BenchRecord record;
    /** The node of the store being measured, and its HTTP address. */
    private ElasticsearchClient es;

    private URI http;

    LockScaleBenchmark(ElasticsearchClient es, PrintStream out, BenchRecord record) {
        this.defaultNode = es;
        this.out = out;
        this.record = record;
    }

    record Row(int held, long p50Nanos, long p90Nanos, double oneCallerOps, double manyCallersOps, double bytesPerOp) {}

    void run() throws Exception {
        int max = Integer.getInteger("esrel.bench.lock-scale.max", 100_000);
        int tableMax = Integer.getInteger("esrel.bench.lock-scale.table-max", 10_000);
        measureStore(
                "grants store (default)",
                "",
                defaultNode,
                URI.create(System.getProperty(Benchmarks.HTTP_URI_PROPERTY)),
                max);
        if (tableMax > 0) {
            try (EsCluster table = EsCluster.builder()
                    .heap("1g")
                    .setting("esrel.treelock.store", "table")
                    .build()) {
                table.start();
                measureStore(
                        "table store (esrel 0.1), the baseline",
                        "table store: ",
                        table.client(),
                        table.httpUri(),
                        tableMax);
            }
        }
    }

    private void measureStore(String store, String label, ElasticsearchClient node, URI httpUri, int max)
            throws Exception {
        this.es = node;
        this.http = httpUri;
        List<Integer> sizes = new ArrayList<>(List.of(0, 1_000, 10_000, 100_000));
        sizes.removeIf(n -> n > max);
        int limit = sizes.get(sizes.size() - 1) + CALLERS + 1;
        es.cluster().putSettings(s -> s.transient_(MAX_LOCKS_SETTING, JsonData.of(limit)));
        out.printf(
                "%nTree locks at scale, %s: acquire + release of one exclusive lock in a namespace already holding n"
                        + " locks%n",
                store);
        out.printf(
                "  %8s %9s %9s %13s %13s %12s %10s %10s%n",
                "held", "p50 ms", "p90 ms", "ops/s 1", "ops/s " + CALLERS, "bytes/op", "p50 ratio", "ops ratio");
        try {
            warmUp();
            Row empty = null;
            for (int held : sizes) {
                Row row = measure(held);
                if (empty == null) {
                    empty = row;
                }
                print(label, row, empty);
            }
        } finally {
            es.cluster().putSettings(s -> s.transient_(MAX_LOCKS_SETTING, JsonData.fromJson("null")));
        }
        out.printf(
                "  latency: %d sequential rounds on one path; throughput: %d ops on 1 caller, %d on each of %d callers"
                        + " (own leaf each); bytes/op: shard bulk bytes per acquire or release, over the latency"
                        + " rounds; ratios: row / empty namespace (p50: lower is better, ops/s with %d callers: higher"
                        + " is better)%n",
                LATENCY_ROUNDS, ONE_CALLER_OPS, OPS_PER_CALLER, CALLERS, CALLERS);
        if (label.isEmpty()) {
            measureSpread();
        }
    }

    /**
     * What bounds one namespace: its decisions are compare-and-sets of one head document, so its rounds are
     * serialized. The same {@value #CALLERS} callers spread over 1, 4 and 16 namespaces (each caller on its own
     * leaf in namespace {@code caller % n}) show how much of the single namespace's throughput that costs on this
     * node; what the namespaces still share is the lock index's one shard.
     */
    private void measureSpread() throws Exception {
        out.printf(
                "%nThe same %d callers spread over n namespaces (empty ones, %d acquire + release each)%n",
                CALLERS, SPREAD_OPS_PER_CALLER);
        out.printf("  %10s %13s %10s%n", "namespaces", "ops/s " + CALLERS, "ops ratio");
        double one = 0;
        for (int namespaces : List.of(1, 4, CALLERS)) {
            List<TreeLocks> locks = new ArrayList<>();
            try {
                for (int n = 0; n < namespaces; n++) {
                    String index = INDEX_PREFIX + "spread-" + namespaces + "-" + n;
                    es.indices()
                            .create(c -> c.index(index)
                                    .settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
                    locks.add(PluginTreeLocks.of(b -> b.client(es).index(index).ttl(Duration.ofMinutes(30))));
                }
                for (TreeLocks l : locks) {
                    LockBenchmark.cycle(l, "/w/warm");
                }
                double ops =
                        LockBenchmark.throughput(t -> locks.get(t % namespaces), "/s/", CALLERS, SPREAD_OPS_PER_CALLER);
                if (namespaces == 1) {
                    one = ops;
                }
                out.printf("  %10d %13.0f %9.2fx%n", namespaces, ops, ops / one);
                record.add(
                        "lock-scale",
                        "ops/s, " + CALLERS + " callers over " + namespaces + " namespaces",
                        ops,
                        "ops/s",
                        namespaces == 1 ? Double.NaN : ops / one,
                        BenchRecord.Better.HIGHER,
                        Double.NaN);
            } finally {
                for (TreeLocks l : locks) {
                    l.close();
                }
            }
        }
    }

    /** JIT, connections and the lock index itself, in a namespace of its own, so that the first row is not slower. */
    private void warmUp() throws Exception {
        String index = INDEX_PREFIX + "warm-up";
        es.indices()
                .create(c -> c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        try (TreeLocks locks = PluginTreeLocks.of(b -> b.client(es).index(index).ttl(Duration.ofMinutes(30)))) {
            fill(http, index, 100);
            for (int i = 0; i < 3 * WARMUP; i++) {
                LockBenchmark.cycle(locks, "/w/warm");
            }
            LockBenchmark.throughput(locks, "/w/t", CALLERS, WARMUP);
        }
    }

    private Row measure(int held) throws Exception {
        String index = INDEX_PREFIX + held;
        es.indices()
                .create(c -> c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        try (TreeLocks locks = PluginTreeLocks.of(b -> b.client(es).index(index).ttl(Duration.ofMinutes(30)))) {
            long fillStart = System.nanoTime();
            fill(http, index, held);
            double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
            for (int i = 0; i < WARMUP; i++) {
                LockBenchmark.cycle(locks, "/w/warm");
            }
            long bytesBefore = bulkBytes();
            long[] times = new long[LATENCY_ROUNDS];
            for (int i = 0; i < LATENCY_ROUNDS; i++) {
                long start = System.nanoTime();
                LockBenchmark.cycle(locks, "/w/0");
                times[i] = System.nanoTime() - start;
            }
            double bytesPerOp = (bulkBytes() - bytesBefore) / (2.0 * LATENCY_ROUNDS);
            double one = LockBenchmark.throughput(locks, "/w/t", 1, ONE_CALLER_OPS);
            double many = LockBenchmark.throughput(locks, "/w/t", CALLERS, OPS_PER_CALLER);
            Arrays.sort(times);
            if (held > 0) {
                out.printf("  (%d locks taken in %.1f s by %d callers)%n", held, fillSeconds, CALLERS);
            }
            if (held >= 10_000) {
                measureListing(index, held);
            }
            return new Row(held, times[LATENCY_ROUNDS / 2], times[(int) (LATENCY_ROUNDS * 0.9)], one, many, bytesPerOp);
        }
    }

    /**
     * The listing of a namespace holding {@code held} locks: all of it in one response, then in pages of
     * {@value #LISTING_PAGE} paths ({@code ?size=&after=}), each walk timed once and checked to list every lock.
     */
    private void measureListing(String index, int held) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        long start = System.nanoTime();
        String all = get(client, "/" + index + "/_treelock");
        double allMs = (System.nanoTime() - start) / 1e6;
        int listed = JSON.readTree(all).get("locks").size();
        start = System.nanoTime();
        int pages = 0;
        int paged = 0;
        long bytes = 0;
        String after = null;
        do {
            String body = get(
                    client,
                    "/" + index + "/_treelock?size=" + LISTING_PAGE
                            + (after == null ? "" : "&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8)));
            bytes = Math.max(bytes, body.length());
            JsonNode page = JSON.readTree(body);
            paged += page.get("locks").size();
            pages++;
            after = page.hasNonNull("next") ? page.get("next").asText() : null;
        } while (after != null);
        double pagedMs = (System.nanoTime() - start) / 1e6;
        // The held locks and the few the measurements left behind (released ones are not listed).
        if (listed < held || paged != listed) {
            throw new IllegalStateException(
                    "listing " + index + ": " + listed + " paths in one response, " + paged + " in pages, of " + held);
        }
        out.printf(
                "  (listing %d locks: one response of %.1f MB in %.0f ms; %d pages of up to %d paths, at most %.1f MB"
                        + " each, in %.0f ms)%n",
                listed, all.length() / 1e6, allMs, pages, LISTING_PAGE, bytes / 1e6, pagedMs);
        record.add(
                "lock-scale",
                "listing " + held + " locks, one response",
                allMs,
                "ms",
                Double.NaN,
                BenchRecord.Better.LOWER,
                Double.NaN);
        record.add(
                "lock-scale",
                "listing " + held + " locks, pages of " + LISTING_PAGE,
                pagedMs,
                "ms",
                Double.NaN,
                BenchRecord.Better.LOWER,
                Double.NaN);
    }

    private String get(HttpClient client, String path) throws Exception {
        HttpResponse<String> r = client.send(
                HttpRequest.newBuilder(URI.create(http + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /**
     * Takes {@code held} shared locks on {@code /held/<i>} through the REST API, owned by no provider (a provider
     * releases its locks when closed): they stay until their lease, longer than the run, ends.
     */
    private static void fill(URI node, String index, int held) throws Exception {
        URI acquire = URI.create(node + "/" + index + "/_treelock/acquire");
        HttpClient http = HttpClient.newHttpClient();
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < CALLERS; t++) {
                done.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < held; i = next.getAndIncrement()) {
                        String body = "{\"path\": \"/held/" + i + "\", \"mode\": \"shared\", \"owner\": \"filler\","
                                + " \"ttl\": \"1h\"}";
                        HttpResponse<String> r = http.send(
                                HttpRequest.newBuilder(acquire)
                                        .header("Content-Type", "application/json")
                                        .POST(HttpRequest.BodyPublishers.ofString(body))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 200) {
                            throw new IllegalStateException(
                                    "filling " + index + ": " + r.statusCode() + " " + r.body());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(2, TimeUnit.HOURS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The bytes of every shard-level bulk request the node has executed (each write to the lock index is one). Read
     * over plain HTTP: the typed request for these metrics differs between the client lines.
     */
    private long bulkBytes() throws Exception {
        long sum = 0;
        for (JsonNode node : JSON.readTree(get(HttpClient.newHttpClient(), "/_nodes/stats/indices/bulk"))
                .get("nodes")) {
            sum += node.at("/indices/bulk/total_size_in_bytes").asLong();
        }
        return sum;
    }

    private void print(String label, Row row, Row empty) {
        double p50Ratio = (double) row.p50Nanos() / empty.p50Nanos();
        double opsRatio = row.manyCallersOps() / empty.manyCallersOps();
        out.printf(
                "  %8d %9.2f %9.2f %13.0f %13.0f %12.0f %9.2fx %9.2fx%n",
                row.held(),
                row.p50Nanos() / 1e6,
                row.p90Nanos() / 1e6,
                row.oneCallerOps(),
                row.manyCallersOps(),
                row.bytesPerOp(),
                p50Ratio,
                opsRatio);
        String at = " with " + row.held() + " locks held";
        String benchmark = "lock-scale";
        boolean baseline = row == empty;
        record.add(
                benchmark,
                label + "acquire + release p50" + at,
                row.p50Nanos() / 1e6,
                "ms",
                baseline ? Double.NaN : p50Ratio,
                BenchRecord.Better.LOWER,
                Double.NaN);
        record.add(
                benchmark,
                label + "ops/s, 1 caller" + at,
                row.oneCallerOps(),
                "ops/s",
                baseline ? Double.NaN : row.oneCallerOps() / empty.oneCallerOps(),
                BenchRecord.Better.HIGHER,
                Double.NaN);
        record.add(
                benchmark,
                label + "ops/s, " + CALLERS + " callers" + at,
                row.manyCallersOps(),
                "ops/s",
                baseline ? Double.NaN : opsRatio,
                BenchRecord.Better.HIGHER,
                Double.NaN);
        record.add(
                benchmark,
                label + "lock index bytes per operation" + at,
                row.bytesPerOp(),
                "bytes",
                baseline ? Double.NaN : row.bytesPerOp() / empty.bytesPerOp(),
                BenchRecord.Better.LOWER,
                Double.NaN);
    }
}
