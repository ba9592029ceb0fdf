package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.DocumentTreeLocks;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.PluginTreeLocks;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLockListener;
import io.github.esrel.lock.TreeLocks;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Tree locks: one acquire + release of an exclusive lock, at depth 1 ({@code /w0}) and depth 5
 * ({@code /a/b/c/d/w0}), on the esrel plugin's REST API against the seed's client-side protocol (the
 * lock-document fallback, {@link DocumentTreeLocks}) on the same node, in the same run. Latency: one
 * thread, median and 90th percentile. Throughput: one thread, and {@value #THREADS} threads each on
 * its own leaf (no lock conflicts, but the ancestors are shared, the fallback's hot spot). Ratios are
 * fallback / plugin. Both are measured under the same noise: latency rounds alternate between them,
 * throughput runs too (best of two each).
 */
final class LockBenchmark {

    private static final String INDEX = "bench-locks";
    private static final int THREADS = 8;
    private static final int WARMUP = 30;
    private static final int LATENCY_ROUNDS = 200;
    private static final int THROUGHPUT_OPS_EACH = 40;
    /** Rounds per side of the meters' overhead run. */
    private static final int METERS_ROUNDS = 20;

    private final ElasticsearchClient es;
    private final PrintStream out;

    private final BenchRecord record;

    LockBenchmark(ElasticsearchClient es, PrintStream out, BenchRecord record) {
        this.es = es;
        this.out = out;
        this.record = record;
    }

    record Row(long p50Nanos, long p90Nanos, double oneThreadOps, double manyThreadsOps) {}

    /** Only the meters' overhead row ({@code -Desrel.bench=meters}), on an index of its own. */
    void runMetersOnly() throws Exception {
        es.indices()
                .create(c -> c.index(INDEX).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        out.printf("%nTree locks: what esrel-micrometer costs%n");
        try (TreeLocks plugin =
                PluginTreeLocks.of(b -> b.client(es).index(INDEX).ttl(Duration.ofMinutes(5)))) {
            throughput(plugin, "/warm", THREADS, 20);
            metersOverhead(plugin);
        }
        es.indices().delete(d -> d.index(INDEX));
    }

    void run() throws Exception {
        es.indices()
                .create(c -> c.index(INDEX).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        // Leases long enough that no renewal runs during a measurement; every lock is released at once anyway.
        try (TreeLocks plugin =
                        PluginTreeLocks.of(b -> b.client(es).index(INDEX).ttl(Duration.ofMinutes(5)));
                TreeLocks fallback =
                        DocumentTreeLocks.of(b -> b.client(es).index(INDEX).ttl(Duration.ofMinutes(5)))) {
            // Warm up both (JIT, pooled connections, the fallback's lock index), each at both depths, with threads.
            for (TreeLocks locks : List.of(plugin, fallback)) {
                for (String dir : List.of("", "/a/b/c/d")) {
                    latency(locks, dir + "/warm", WARMUP);
                    throughput(locks, dir + "/warm", THREADS, 5);
                }
            }
            out.printf("%nTree locks: acquire + release of one exclusive lock, uncontended paths%n");
            out.printf(
                    "  %-34s %5s %9s %9s %13s %13s%n",
                    "what", "depth", "p50 ms", "p90 ms", "ops/s 1 thr", "ops/s " + THREADS + " thr");
            for (int depth : new int[] {1, 5}) {
                String dir = depth == 1 ? "" : "/a/b/c/d";
                Row[] both = measure(plugin, fallback, dir);
                Row p = both[0];
                Row f = both[1];
                row("plugin REST API", depth, p);
                row("fallback (lock documents)", depth, f);
                // The plugin is the baseline; throughput runs are best of 2, latency one long series: spread unknown.
                String at = " at depth " + depth;
                record.add(
                        "locks",
                        "plugin acquire + release p50" + at,
                        p.p50Nanos() / 1e6,
                        "ms",
                        Double.NaN,
                        BenchRecord.Better.LOWER,
                        Double.NaN);
                record.add(
                        "locks",
                        "fallback acquire + release p50" + at,
                        f.p50Nanos() / 1e6,
                        "ms",
                        (double) f.p50Nanos() / p.p50Nanos(),
                        BenchRecord.Better.LOWER,
                        Double.NaN);
                record.add(
                        "locks",
                        "plugin ops/s with " + THREADS + " threads" + at,
                        p.manyThreadsOps(),
                        "ops/s",
                        Double.NaN,
                        BenchRecord.Better.HIGHER,
                        Double.NaN);
                record.add(
                        "locks",
                        "fallback ops/s with " + THREADS + " threads" + at,
                        f.manyThreadsOps(),
                        "ops/s",
                        f.manyThreadsOps() / p.manyThreadsOps(),
                        BenchRecord.Better.HIGHER,
                        Double.NaN);
                out.printf(
                        "  %-34s %5d %8.1fx %8.1fx %12.2fx %12.2fx%n",
                        "ratio fallback / plugin",
                        depth,
                        (double) f.p50Nanos() / p.p50Nanos(),
                        (double) f.p90Nanos() / p.p90Nanos(),
                        f.oneThreadOps() / p.oneThreadOps(),
                        f.manyThreadsOps() / p.manyThreadsOps());
            }
            out.printf(
                    "  latency: %d sequential rounds, alternating plugin and fallback; throughput: best of 2 runs"
                            + " (alternating) of %d ops on 1 thread, of %d ops on each of %d threads, one leaf per thread%n",
                    LATENCY_ROUNDS, THROUGHPUT_OPS_EACH * 2, THROUGHPUT_OPS_EACH, THREADS);
            out.printf("  requests per acquire + release: plugin 2; fallback 2 x (depth + 1) reads and as many"
                    + " conditional writes, more on conflicts%n");
            metersOverhead(plugin);
        }
        es.indices().delete(d -> d.index(INDEX));
    }

    /**
     * The plugin's throughput again, with and without esrel-micrometer's listener on the provider, in alternating
     * rounds: what the meters and observations cost per acquire + release.
     */
    private void metersOverhead(TreeLocks plain) throws Exception {
        try (TreeLocks metered = PluginTreeLocks.of(b -> b.client(es)
                .index(INDEX)
                .ttl(Duration.ofMinutes(5))
                .listener(MetersOverhead.instrumentation().lockListener()))) {
            throughput(metered, "/m", THREADS, 5);
            out.printf(
                    "  with esrel-micrometer (meters + observations with a meter handler), %d alternating rounds of"
                            + " %d threads x %d acquire + release, plugin, depth 1:%n",
                    METERS_ROUNDS, THREADS, THROUGHPUT_OPS_EACH);
            MetersOverhead.header(out, "ops/s");
            AlternatingRounds.Round off = () -> ops(plain);
            AlternatingRounds.Round on = () -> ops(metered);
            MetersOverhead.print(
                    out,
                    record,
                    "locks",
                    "plugin acquire + release, " + THREADS + " threads",
                    "ops/s",
                    AlternatingRounds.run(METERS_ROUNDS, off, on));
            // What the listener itself costs per acquire + release, on a real lock, against what one costs here.
            TreeLockListener listener = MetersOverhead.instrumentation().lockListener();
            LockRequest request = LockRequest.of(b -> b.path("/m0").mode(LockMode.EXCLUSIVE));
            TreeLock lock = plain.acquire(request).orThrow();
            double nanos = MetersOverhead.nanosPerCall(200_000, () -> {
                listener.onAcquireStarted(INDEX, request);
                listener.onGranted(lock, Duration.ofMillis(1));
                listener.onReleased(lock, true);
            });
            lock.release();
            double perOp = 1e9 / throughput(plain, "/m", THREADS, THROUGHPUT_OPS_EACH);
            out.printf(
                    "  the listener alone: %.0f ns per acquire + release (observation included), %.2f %% of 1 /"
                            + " throughput without meters (%.0f us per acquire + release)%n",
                    nanos, nanos / perOp * 100, perOp / 1e3);
        }
    }

    private static long ops(TreeLocks locks) throws Exception {
        throughput(locks, "/m", THREADS, THROUGHPUT_OPS_EACH);
        return (long) THREADS * THROUGHPUT_OPS_EACH;
    }

    /**
     * Both providers under the same noise: latency rounds alternate between them, and each throughput
     * figure is the better of two runs taken in the order a, b, a, b.
     */
    private static Row[] measure(TreeLocks a, TreeLocks b, String dir) throws Exception {
        long[] ta = new long[LATENCY_ROUNDS];
        long[] tb = new long[LATENCY_ROUNDS];
        for (int i = 0; i < LATENCY_ROUNDS; i++) {
            ta[i] = latency(a, dir + "/w0", 1)[0];
            tb[i] = latency(b, dir + "/w0", 1)[0];
        }
        double[] one = bestOfTwo(a, b, dir + "/t", 1, THROUGHPUT_OPS_EACH * 2);
        double[] many = bestOfTwo(a, b, dir + "/t", THREADS, THROUGHPUT_OPS_EACH);
        return new Row[] {row(ta, one[0], many[0]), row(tb, one[1], many[1])};
    }

    private static double[] bestOfTwo(TreeLocks a, TreeLocks b, String prefix, int threads, int opsEach)
            throws Exception {
        double a1 = throughput(a, prefix, threads, opsEach);
        double b1 = throughput(b, prefix, threads, opsEach);
        double a2 = throughput(a, prefix, threads, opsEach);
        double b2 = throughput(b, prefix, threads, opsEach);
        return new double[] {Math.max(a1, a2), Math.max(b1, b2)};
    }

    private static Row row(long[] times, double one, double many) {
        long[] sorted = times.clone();
        Arrays.sort(sorted);
        return new Row(sorted[sorted.length / 2], sorted[(int) (sorted.length * 0.9)], one, many);
    }

    /** Sequential acquire + release of one path; the time of each round. */
    private static long[] latency(TreeLocks locks, String path, int rounds) {
        long[] times = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            cycle(locks, path);
            times[i] = System.nanoTime() - start;
        }
        return times;
    }

    /** Acquire + release per second, {@code threads} threads each on its own leaf below {@code prefix}. */
    static double throughput(TreeLocks locks, String prefix, int threads, int opsEach) throws Exception {
        return throughput(t -> locks, prefix, threads, opsEach);
    }

    /** Acquire + release per second of {@code threads} callers, caller {@code t} on {@code prefix + t} of {@code locksOf(t)}. */
    static double throughput(IntFunction<TreeLocks> locksOf, String prefix, int threads, int opsEach) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String path = prefix + t;
                TreeLocks locks = locksOf.apply(t);
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < opsEach; i++) {
                        cycle(locks, path);
                    }
                    return null;
                }));
            }
            start.await();
            long begin = System.nanoTime();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.MINUTES);
            }
            return threads * opsEach / ((System.nanoTime() - begin) / 1e9);
        } finally {
            pool.shutdownNow();
        }
    }

    static void cycle(TreeLocks locks, String path) {
        TreeLock lock = locks.acquire(path, LockMode.EXCLUSIVE).orThrow();
        if (!lock.release()) {
            throw new IllegalStateException("lost " + lock + " during the benchmark");
        }
    }

    private void row(String what, int depth, Row r) {
        out.printf(
                "  %-34s %5d %9.2f %9.2f %13.0f %13.0f%n",
                what, depth, r.p50Nanos() / 1e6, r.p90Nanos() / 1e6, r.oneThreadOps(), r.manyThreadsOps());
    }
}
