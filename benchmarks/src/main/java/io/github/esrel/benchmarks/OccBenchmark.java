package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.doc.DocRef;
import io.github.esrel.occ.BulkUpdate;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccMetrics;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.RetryPolicy;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Optimistic-concurrency throughput (seed 004's vote counter): increments per second of one writer
 * (the baseline) against 16 writers on one document (contended) and on one document each
 * (uncontended), with several backoff shapes, the naive loop for reference (fast, but it loses
 * votes), the scripted {@code retry_on_conflict} update where painless exists, and a bulk
 * optimistic update against single updates. All ratios are against the baseline of the same run.
 */
final class OccBenchmark {

    private static final String INDEX = "bench-occ";
    private static final int WRITERS = 16;
    private static final int VOTES_EACH = 100;
    private static final int BASELINE_VOTES = 800;

    private final ElasticsearchClient es;
    private final PrintStream out;

    record Counter(long votes) {
        Counter vote() {
            return new Counter(votes + 1);
        }
    }

    OccBenchmark(ElasticsearchClient es, PrintStream out) {
        this.es = es;
        this.out = out;
    }

    void run() throws Exception {
        es.indices().create(c -> c.index(INDEX).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        RetryPolicy patient = RetryPolicy.of(b -> b.maxAttempts(1000)
            .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(1), 2.0, Duration.ofMillis(50))));
        Occ occ = Occ.of(b -> b.client(es).retryPolicy(patient));

        // Warm up both paths (JIT, 16 pooled connections) so that the first measured row is not penalized.
        reset("warmup");
        writers(1, 200, w -> occ.update(INDEX, "warmup", Counter.class, Counter::vote));
        writers(WRITERS, 20, w -> occ.update(INDEX, "warmup", Counter.class, Counter::vote));

        reset("single");
        long baseline = writers(1, BASELINE_VOTES, w -> occ.update(INDEX, "single", Counter.class, Counter::vote));
        double baseRate = BASELINE_VOTES / (baseline / 1e9);
        int votes = WRITERS * VOTES_EACH;

        out.printf("%nOptimistic concurrency: vote counter increments per second (seed 004), %d writers x %d votes%n",
            WRITERS, VOTES_EACH);
        out.printf("  %-72s %9s %8s %8s %10s %6s%n", "what", "votes/s", "ratio", "lost", "conflicts", "p99");
        row("1 writer, esrel Occ.update, one document (baseline)", baseRate, baseRate, 0, 0, 1);

        for (Map.Entry<String, Backoff> shape : List.of(
            Map.entry("backoff 1..50 ms jittered", patient.backoff()),
            Map.entry("backoff 5..500 ms jittered (default)", RetryPolicy.DEFAULT_BACKOFF),
            Map.entry("no backoff", Backoff.none()))) {
            OccMetrics metrics = new OccMetrics();
            Occ contended = Occ.of(b -> b.client(es).listener(metrics)
                .retryPolicy(patient.toBuilder().backoff(shape.getValue()).build()));
            String id = "contended-" + shape.getKey().hashCode();
            reset(id);
            long nanos = writers(WRITERS, VOTES_EACH, w -> contended.update(INDEX, id, Counter.class, Counter::vote));
            OccMetrics.Snapshot m = metrics.snapshot();
            row("16 writers, one document, esrel, " + shape.getKey(), votes / (nanos / 1e9), baseRate,
                votes - count(id), m.conflicts(), m.attemptsPercentile(0.99));
        }

        OccMetrics spread = new OccMetrics();
        Occ uncontended = Occ.of(b -> b.client(es).listener(spread).retryPolicy(patient));
        for (int w = 0; w < WRITERS; w++) {
            reset("own-" + w);
        }
        long own = writers(WRITERS, VOTES_EACH, w -> uncontended.update(INDEX, "own-" + w, Counter.class, Counter::vote));
        long ownLost = 0;
        for (int w = 0; w < WRITERS; w++) {
            ownLost += VOTES_EACH - count("own-" + w);
        }
        row("16 writers, esrel, one document each (uncontended)", votes / (own / 1e9), baseRate, ownLost,
            spread.snapshot().conflicts(), spread.snapshot().attemptsPercentile(0.99));

        reset("naive");
        long naive = writers(WRITERS, VOTES_EACH, w -> {
            Counter c = es.get(g -> g.index(INDEX).id("naive"), Counter.class).source();
            es.index(i -> i.index(INDEX).id("naive").document(c.vote()));
        });
        row("16 writers, naive read-increment-write, one document (loses votes)", votes / (naive / 1e9), baseRate,
            votes - count("naive"), 0, 1);

        if (occ.scriptingAvailable()) {
            reset("scripted");
            long scripted = writers(WRITERS, VOTES_EACH, w -> occ.scriptedUpdate(DocRef.of(INDEX, "scripted"),
                "ctx._source.votes += 1", Map.of(), 1000).orThrow());
            row("16 writers, scripted _update retry_on_conflict=1000, one document", votes / (scripted / 1e9), baseRate,
                votes - count("scripted"), 0, 1);
        } else {
            out.printf("  %-72s %9s%n", "16 writers, scripted _update with retry_on_conflict", "not available "
                + "(no lang-painless module on this cluster)");
        }

        int docs = 1000;
        for (int d = 0; d < docs; d++) {
            reset("bulk-" + d);
        }
        long oneByOne = timed(() -> {
            for (int d = 0; d < docs; d++) {
                occ.update(INDEX, "bulk-" + d, Counter.class, Counter::vote);
            }
        });
        long bulk = timed(() -> {
            BulkUpdate<Counter> b = occ.bulk(Counter.class);
            for (int d = 0; d < docs; d++) {
                b.update(INDEX, "bulk-" + d, Counter::vote);
            }
            b.execute();
        });
        out.printf("%n  %,d documents, +1 each, one writer:%n", docs);
        out.printf("  %-72s %9s %8s%n", "what", "docs/s", "ratio");
        out.printf("  %-72s %,9.0f %7.2fx%n", "Occ.update one by one (baseline)", docs / (oneByOne / 1e9), 1.0);
        out.printf("  %-72s %,9.0f %7.2fx%n", "Occ.bulk: one _mget + one _bulk per 500 documents",
            docs / (bulk / 1e9), (double) oneByOne / bulk);
        out.println("  ratio = throughput / baseline throughput (higher is faster); lost = votes cast - votes counted;"
            + " p99 = attempts per vote");
        es.indices().delete(d -> d.index(INDEX));
    }

    private void row(String what, double rate, double baseRate, long lost, long conflicts, int p99) {
        out.printf("  %-72s %,9.0f %7.2fx %8d %10d %6d%n", what, rate, rate / baseRate, lost, conflicts, p99);
    }

    private void reset(String id) throws Exception {
        es.index(i -> i.index(INDEX).id(id).document(new Counter(0)));
    }

    private long count(String id) throws Exception {
        return es.get(g -> g.index(INDEX).id(id), Counter.class).source().votes();
    }

    interface Vote {
        void cast(int writer) throws Exception;
    }

    private static long timed(Timer.Action action) throws Exception {
        long start = System.nanoTime();
        action.run();
        return System.nanoTime() - start;
    }

    /** Wall time of {@code n} writers released together, each casting {@code each} votes. */
    private static long writers(int n, int each, Vote vote) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CyclicBarrier start = new CyclicBarrier(n + 1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < n; w++) {
                int writer = w;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        vote.cast(writer);
                    }
                    return null;
                }));
            }
            start.await();
            long t0 = System.nanoTime();
            for (Future<?> f : futures) {
                f.get(10, TimeUnit.MINUTES);
            }
            return System.nanoTime() - t0;
        } finally {
            pool.shutdownNow();
        }
    }
}
