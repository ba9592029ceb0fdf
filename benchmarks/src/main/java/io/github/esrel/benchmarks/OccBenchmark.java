package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocRef;
import io.github.esrel.micrometer.EsrelMicrometer;
import io.github.esrel.occ.BulkUpdate;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccListener;
import io.github.esrel.occ.OccMetrics;
import io.github.esrel.occ.Outcome;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.testenv.Clients;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Optimistic-concurrency throughput (seed 004's vote counter): increments per second of one writer
 * (the baseline) against 16 writers on one document with write combining (the default), 4 child JVMs of
 * 4 writers each on one document (combining within each process, conflicts between them), 16 writers
 * with combining off and several backoff shapes, 16 writers on one document each (uncontended), the naive loop for reference (fast, but it loses
 * votes), the scripted {@code retry_on_conflict} update where painless exists, and a bulk
 * optimistic update against single updates. All ratios are against the baseline of the same run. The hot
 * document's goals (16 writers combining against one writer, and against the naive loop) are measured again in
 * alternating rounds on the warm node ({@code hotDocumentRounds}), which is what the record keeps for them.
 */
final class OccBenchmark {

    private static final String INDEX = "bench-occ";
    private static final int WRITERS = 16;
    private static final int VOTES_EACH = 100;
    private static final int BASELINE_VOTES = 800;
    /** Votes per writer where writes are combined: they go fast, and a longer run measures better. */
    private static final int COMBINED_VOTES_EACH = 300;

    /** Rounds per side of each meters' overhead row, and votes per writer in a round. */
    private static final int METERS_ROUNDS = 60;

    private static final int METERS_VOTES_EACH = 150;

    /** Rounds of 16 writers combining and of the naive loop that warm the node up before the first row. */
    private static final int WARMUP_ROUNDS = 6;

    /** Rounds per side of the hot document's goals in alternating rounds, after the untimed ones. */
    private static final int VERSUS_ROUNDS = 12;

    private static final int VERSUS_WARMUP_ROUNDS = 2;

    private static final int PROCESSES = 4;
    private static final int THREADS_PER_PROCESS = 4;

    private final ElasticsearchClient es;
    private final PrintStream out;

    record Counter(long votes) {
        Counter vote() {
            return new Counter(votes + 1);
        }
    }

    /** A vote counter that maps only the count of a document holding more: its other fields must survive. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Tally(long votes) {
        Tally vote() {
            return new Tally(votes + 1);
        }
    }

    /** Fields of the wide document that {@link Tally} does not map. */
    private static final int UNMAPPED_FIELDS = 10;

    /**
     * Timed rounds of each side of the bulk rows (one by one against the bulk; the bulk with and without fields the
     * class does not map), alternating.
     */
    private static final int BULK_ROUNDS = 3;

    private final BenchRecord record;

    OccBenchmark(ElasticsearchClient es, PrintStream out, BenchRecord record) {
        this.es = es;
        this.out = out;
        this.record = record;
    }

    /** The retry policy of the contended rows: attempts enough never to give up, a short jittered backoff. */
    private static final RetryPolicy PATIENT = RetryPolicy.of(b -> b.maxAttempts(1000)
            .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(1), 2.0, Duration.ofMillis(50))));

    /** Only the meters' overhead row ({@code -Desrel.bench=meters}), on an index of its own. */
    void runMetersOnly() throws Exception {
        es.indices()
                .create(c -> c.index(INDEX).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        out.printf("%nOptimistic concurrency: what esrel-micrometer costs%n");
        metersOverhead(PATIENT);
        es.indices().delete(d -> d.index(INDEX));
    }

    void run() throws Exception {
        es.indices()
                .create(c -> c.index(INDEX).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        RetryPolicy patient = PATIENT;
        Occ occ = Occ.of(b -> b.client(es).retryPolicy(patient));

        // Warm up both paths (JIT, 16 pooled connections) so that the first measured row is not penalized, and the
        // node: its writes to one document got 5x faster over the first 15 seconds of 16 writers.
        reset("warmup");
        writers(1, 200, w -> occ.update(INDEX, "warmup", Counter.class, Counter::vote));
        reset("warmup-naive");
        for (int r = 0; r < WARMUP_ROUNDS; r++) {
            writers(WRITERS, VOTES_EACH, w -> occ.update(INDEX, "warmup", Counter.class, Counter::vote));
            writers(WRITERS, VOTES_EACH, w -> naiveVote("warmup-naive"));
        }

        reset("single");
        long baseline = writers(1, BASELINE_VOTES, w -> occ.update(INDEX, "single", Counter.class, Counter::vote));
        double baseRate = BASELINE_VOTES / (baseline / 1e9);
        int votes = WRITERS * VOTES_EACH;

        out.printf(
                "%nOptimistic concurrency: vote counter increments per second (seed 004), %d writers x %d votes"
                        + " (combined: x %d)%n",
                WRITERS, VOTES_EACH, COMBINED_VOTES_EACH);
        out.printf(
                "  %-72s %9s %8s %6s %10s %7s %4s %6s%n",
                "what", "votes/s", "ratio", "lost", "conflicts", "wasted", "p99", "v/write");
        row("1 writer, esrel Occ.update, one document (baseline)", baseRate, baseRate, 0, 0, 0, 1, 1);

        // Write combining (the default): the 16 writers of one Occ queue behind one conditional write.
        OccMetrics combinedMetrics = new OccMetrics();
        Occ combined = Occ.of(b -> b.client(es).listener(combinedMetrics).retryPolicy(patient));
        reset("combined");
        long seqBefore = seqNo("combined");
        int combinedVotes = WRITERS * COMBINED_VOTES_EACH;
        long combinedNanos = writers(
                WRITERS, COMBINED_VOTES_EACH, w -> combined.update(INDEX, "combined", Counter.class, Counter::vote));
        OccMetrics.Snapshot cm = combinedMetrics.snapshot();
        row(
                "16 writers, one document, esrel, write combining (default)",
                combinedVotes / (combinedNanos / 1e9),
                baseRate,
                combinedVotes - count("combined"),
                cm.conflicts(),
                wasted(cm),
                cm.attemptsPercentile(0.99),
                (double) combinedVotes / (seqNo("combined") - seqBefore));

        // The same on a document that also holds fields the class does not map (another service's, _class, nested
        // objects, arrays): esrel keeps them, at the cost of one more serialization and a merge per call.
        OccMetrics wideMetrics = new OccMetrics();
        Occ wide = Occ.of(b -> b.client(es).listener(wideMetrics).retryPolicy(patient));
        resetWide("combined-wide");
        long wideSeqBefore = seqNo("combined-wide");
        long wideNanos = writers(
                WRITERS, COMBINED_VOTES_EACH, w -> wide.update(INDEX, "combined-wide", Tally.class, Tally::vote));
        OccMetrics.Snapshot wm = wideMetrics.snapshot();
        row(
                "16 writers, one document with " + UNMAPPED_FIELDS + " fields the class does not map, combining",
                combinedVotes / (wideNanos / 1e9),
                baseRate,
                combinedVotes - countWide("combined-wide"),
                wm.conflicts(),
                wasted(wm),
                wm.attemptsPercentile(0.99),
                (double) combinedVotes / (seqNo("combined-wide") - wideSeqBefore));

        processes(baseRate);

        metersOverhead(patient);

        for (Map.Entry<String, Backoff> shape : List.of(
                Map.entry("backoff 1..50 ms jittered", patient.backoff()),
                Map.entry("backoff 5..500 ms jittered (default)", RetryPolicy.DEFAULT_BACKOFF),
                Map.entry("no backoff", Backoff.none()))) {
            OccMetrics metrics = new OccMetrics();
            Occ contended = Occ.of(b -> b.client(es)
                    .listener(metrics)
                    .combineWrites(false)
                    .retryPolicy(patient.toBuilder().backoff(shape.getValue()).build()));
            String id = "contended-" + shape.getKey().hashCode();
            reset(id);
            long nanos = writers(WRITERS, VOTES_EACH, w -> contended.update(INDEX, id, Counter.class, Counter::vote));
            OccMetrics.Snapshot m = metrics.snapshot();
            row(
                    "16 writers, one document, combining off, " + shape.getKey(),
                    votes / (nanos / 1e9),
                    baseRate,
                    votes - count(id),
                    m.conflicts(),
                    wasted(m),
                    m.attemptsPercentile(0.99),
                    1);
        }

        OccMetrics spread = new OccMetrics();
        Occ uncontended = Occ.of(b -> b.client(es).listener(spread).retryPolicy(patient));
        for (int w = 0; w < WRITERS; w++) {
            reset("own-" + w);
        }
        long own =
                writers(WRITERS, VOTES_EACH, w -> uncontended.update(INDEX, "own-" + w, Counter.class, Counter::vote));
        long ownLost = 0;
        for (int w = 0; w < WRITERS; w++) {
            ownLost += VOTES_EACH - count("own-" + w);
        }
        row(
                "16 writers, esrel, one document each (uncontended)",
                votes / (own / 1e9),
                baseRate,
                ownLost,
                spread.snapshot().conflicts(),
                wasted(spread.snapshot()),
                spread.snapshot().attemptsPercentile(0.99),
                1);

        reset("naive");
        long naive = writers(WRITERS, VOTES_EACH, w -> naiveVote("naive"));
        row(
                "16 writers, naive read-increment-write, one document (loses votes)",
                votes / (naive / 1e9),
                baseRate,
                votes - count("naive"),
                0,
                0,
                1,
                1);

        hotDocumentRounds(patient);

        if (occ.scriptingAvailable()) {
            reset("scripted");
            long scripted = writers(
                    WRITERS,
                    VOTES_EACH,
                    w -> occ.scriptedUpdate(DocRef.of(INDEX, "scripted"), "ctx._source.votes += 1", Map.of(), 1000)
                            .orThrow());
            row(
                    "16 writers, scripted _update retry_on_conflict=1000, one document",
                    votes / (scripted / 1e9),
                    baseRate,
                    votes - count("scripted"),
                    0,
                    0,
                    1,
                    1);
        } else {
            out.printf(
                    "  %-72s %9s%n",
                    "16 writers, scripted _update with retry_on_conflict",
                    "not available " + "(no lang-painless module on this cluster)");
        }

        int docs = 1000;
        // One-by-one updates and then the bulk on the same documents, in alternating rounds (the median of each
        // side), after an untimed round: Occ.update is warm from the rows above, and the first BulkUpdate of a JVM
        // would otherwise pay its class loading and compilation in the figure.
        long[] oneByOneRounds = new long[BULK_ROUNDS];
        long[] bulkRounds = new long[BULK_ROUNDS];
        for (int r = -1; r < BULK_ROUNDS; r++) {
            String prefix = "bulk-" + (r + 1) + "-";
            resetAll(prefix, docs, false);
            long oneByOne = timed(() -> {
                for (int d = 0; d < docs; d++) {
                    occ.update(INDEX, prefix + d, Counter.class, Counter::vote);
                }
            });
            long bulk = timed(() -> {
                BulkUpdate<Counter> b = occ.bulk(Counter.class);
                for (int d = 0; d < docs; d++) {
                    b.update(INDEX, prefix + d, Counter::vote);
                }
                b.execute();
            });
            if (r >= 0) {
                oneByOneRounds[r] = oneByOne;
                bulkRounds[r] = bulk;
            }
        }
        long oneByOne = median(oneByOneRounds);
        long bulk = median(bulkRounds);
        // What keeping unmapped fields costs a bulk: the same bulk on fresh documents the class maps whole and on fresh
        // documents with fields it does not map, in alternating rounds (the median of each side).
        long[] plainBulk = new long[BULK_ROUNDS];
        long[] wideBulk = new long[BULK_ROUNDS];
        for (int r = 0; r < BULK_ROUNDS; r++) {
            String plainPrefix = "bulk-plain-" + r + "-";
            String widePrefix = "bulk-wide-" + r + "-";
            resetAll(plainPrefix, docs, false);
            resetAll(widePrefix, docs, true);
            plainBulk[r] = timed(() -> {
                BulkUpdate<Counter> b = occ.bulk(Counter.class);
                for (int d = 0; d < docs; d++) {
                    b.update(INDEX, plainPrefix + d, Counter::vote);
                }
                b.execute();
            });
            wideBulk[r] = timed(() -> {
                BulkUpdate<Tally> b = occ.bulk(Tally.class);
                for (int d = 0; d < docs; d++) {
                    b.update(INDEX, widePrefix + d, Tally::vote);
                }
                b.execute();
            });
        }
        long plainMedian = median(plainBulk);
        long wideMedian = median(wideBulk);
        out.printf("%n  %,d documents, +1 each, one writer:%n", docs);
        out.printf("  %-72s %9s %8s%n", "what", "docs/s", "ratio");
        out.printf(
                "  %-72s %,9.0f %7.2fx%n",
                "Occ.update one by one (baseline, median of " + BULK_ROUNDS + ")", docs / (oneByOne / 1e9), 1.0);
        out.printf(
                "  %-72s %,9.0f %7.2fx%n",
                "Occ.bulk: one _mget + one _bulk per 500 documents (median of " + BULK_ROUNDS + ")",
                docs / (bulk / 1e9),
                (double) oneByOne / bulk);
        out.printf(
                "  %-72s %,9.0f %7.2fx%n",
                "Occ.bulk, fresh documents the class maps whole (median of " + BULK_ROUNDS + ")",
                docs / (plainMedian / 1e9),
                (double) oneByOne / plainMedian);
        out.printf(
                "  %-72s %,9.0f %7.2fx   (%.2fx the line above)%n",
                "Occ.bulk, fresh documents with " + UNMAPPED_FIELDS + " fields the class does not map (median)",
                docs / (wideMedian / 1e9),
                (double) oneByOne / wideMedian,
                (double) plainMedian / wideMedian);
        record.add(
                "occ",
                "Occ.bulk, fresh documents with fields the class does not map, vs fresh documents it maps whole",
                docs / (wideMedian / 1e9),
                "docs/s",
                (double) plainMedian / wideMedian,
                BenchRecord.Better.HIGHER,
                Double.NaN);
        record.add(
                "occ",
                "Occ.update one by one, one writer, distinct documents (baseline)",
                docs / (oneByOne / 1e9),
                "docs/s",
                Double.NaN,
                BenchRecord.Better.HIGHER,
                Double.NaN);
        record.add(
                "occ",
                "Occ.bulk, one writer, distinct documents",
                docs / (bulk / 1e9),
                "docs/s",
                (double) oneByOne / bulk,
                BenchRecord.Better.HIGHER,
                Double.NaN);
        out.println("  ratio = throughput / baseline throughput (higher is faster); lost = votes cast - votes counted;"
                + " wasted = attempts beyond the first per vote; p99 = attempts per vote; v/write = votes per write (seq_no"
                + " delta)");
        es.indices().delete(d -> d.index(INDEX));
    }

    private void row(
            String what,
            double rate,
            double baseRate,
            long lost,
            long conflicts,
            double wasted,
            int p99,
            double votesPerWrite) {
        out.printf(
                "  %-72s %,9.0f %7.2fx %6d %10d %7.2f %4s %6.1f%n",
                what,
                rate,
                rate / baseRate,
                lost,
                conflicts,
                wasted,
                p99 > 0 ? String.valueOf(p99) : "-",
                votesPerWrite);
        String name = what.strip();
        record.add(
                "occ",
                name,
                rate,
                "votes/s",
                rate == baseRate ? Double.NaN : rate / baseRate,
                BenchRecord.Better.HIGHER,
                Double.NaN);
        record.add(
                "occ",
                name + ": wasted attempts per vote",
                wasted,
                "attempts",
                Double.NaN,
                BenchRecord.Better.LOWER,
                Double.NaN);
    }

    /**
     * The combined hot-document row again, with and without esrel-micrometer's listeners on the {@link Occ}, in
     * alternating rounds: what the meters cost on the hottest path, alone and with observations through a registry
     * whose handler turns them into timers too (a Boot application with Actuator).
     */
    private void metersOverhead(RetryPolicy patient) throws Exception {
        out.printf(
                "  with esrel-micrometer, %d alternating rounds of %d writers x %d votes each, write combining:%n",
                METERS_ROUNDS, WRITERS, METERS_VOTES_EACH);
        MetersOverhead.header(out, "votes/s");
        record Setup(String what, String id, EsrelMicrometer micrometer) {}
        List<Setup> setups = List.of(
                new Setup("meters", "meters", MetersOverhead.metersOnly()),
                new Setup("meters + observations with a meter handler", "observed", MetersOverhead.instrumentation()));
        Occ plain = Occ.of(b -> b.client(es).retryPolicy(patient));
        double nanosPerVote = 0;
        for (Setup setup : setups) {
            Occ metered = Occ.of(b -> b.client(es)
                    .retryPolicy(patient)
                    .listener(setup.micrometer().occListener()));
            reset(setup.id());
            // Warm up the metered path too (its meters are registered on first use).
            writers(WRITERS, 20, w -> metered.update(INDEX, setup.id(), Counter.class, Counter::vote));
            AlternatingRounds.Round off = () -> {
                writers(WRITERS, METERS_VOTES_EACH, w -> plain.update(INDEX, setup.id(), Counter.class, Counter::vote));
                return (long) WRITERS * METERS_VOTES_EACH;
            };
            AlternatingRounds.Round on = () -> {
                writers(
                        WRITERS,
                        METERS_VOTES_EACH,
                        w -> metered.update(INDEX, setup.id(), Counter.class, Counter::vote));
                return (long) WRITERS * METERS_VOTES_EACH;
            };
            AlternatingRounds.Result r = AlternatingRounds.run(METERS_ROUNDS, off, on);
            MetersOverhead.print(
                    out, record, "occ", "16 writers, one document, write combining", setup.what(), "votes/s", r);
            nanosPerVote = 1e9 / r.a();
        }
        // What each listener itself costs per call, on a real outcome, against what a vote costs here.
        Outcome<Counter> sample = plain.update(INDEX, "meters", Counter.class, Counter::vote);
        for (Setup setup : setups) {
            OccListener listener = setup.micrometer().occListener();
            double nanos = MetersOverhead.nanosPerCall(200_000, () -> {
                listener.onStart(INDEX, Outcome.Operation.UPDATE);
                listener.onOutcome(sample);
            });
            out.printf(
                    "  the listener alone, %s: %.0f ns per call (onStart + onOutcome), %.2f %% of 1 / throughput"
                            + " without it (%.0f us per vote)%n",
                    setup.what(), nanos, nanos / nanosPerVote * 100, nanosPerVote / 1e3);
        }
    }

    /**
     * The hot document's two goals in alternating rounds on one warm node: 16 writers combining against one writer,
     * and against the naive loop. The rows above are measured one after the other, seconds or minutes apart, while
     * the node still warms up (on this machine one write to a hot document took 8.7 ms in the first round of 16 x 100
     * votes and 1.7 ms in the eighth), so their ratios compare a node at one temperature with another.
     */
    private void hotDocumentRounds(RetryPolicy patient) throws Exception {
        Occ occ = Occ.of(b -> b.client(es).retryPolicy(patient));
        reset("vs-one");
        reset("vs-combining");
        reset("vs-naive");
        AlternatingRounds.Round one = () -> {
            writers(1, VOTES_EACH, w -> occ.update(INDEX, "vs-one", Counter.class, Counter::vote));
            return VOTES_EACH;
        };
        AlternatingRounds.Round combined = () -> {
            writers(WRITERS, VOTES_EACH, w -> occ.update(INDEX, "vs-combining", Counter.class, Counter::vote));
            return (long) WRITERS * VOTES_EACH;
        };
        AlternatingRounds.Round naive = () -> {
            writers(WRITERS, VOTES_EACH, w -> naiveVote("vs-naive"));
            return (long) WRITERS * VOTES_EACH;
        };
        AlternatingRounds.run(VERSUS_WARMUP_ROUNDS, naive, combined);
        out.printf(
                "  the hot document in %d alternating rounds of each side (%d votes per writer), after %d untimed:%n",
                VERSUS_ROUNDS, VOTES_EACH, VERSUS_WARMUP_ROUNDS);
        out.printf("  %-72s %9s %9s %8s %10s %9s%n", "what", "A votes/s", "B votes/s", "B/A", "median r/r", "spread");
        long before = count("vs-combining");
        alternatingRow("16 writers, one document, write combining (B) vs 1 writer (A)", one, combined);
        alternatingRow("16 writers, one document, write combining (B) vs the naive loop (A)", naive, combined);
        long lost = 2L * VERSUS_ROUNDS * WRITERS * VOTES_EACH - (count("vs-combining") - before);
        if (lost != 0) {
            throw new IllegalStateException("write combining lost " + lost + " votes");
        }
    }

    private void alternatingRow(String what, AlternatingRounds.Round a, AlternatingRounds.Round b) throws Exception {
        AlternatingRounds.Result r = AlternatingRounds.run(VERSUS_ROUNDS, a, b);
        out.printf(
                "  %-72s %,9.0f %,9.0f %7.2fx %9.2fx %7.1f %%%n",
                what, r.a(), r.b(), r.ratio(), r.medianRoundRatio(), r.spread() * 100);
        // The median of the rounds' own ratios: a burst of load in one round moves it less.
        record.add("occ", what, r.b(), "votes/s", r.medianRoundRatio(), BenchRecord.Better.HIGHER, r.spread());
    }

    /** The naive loop's vote: read, increment, write unconditionally (a write in between is lost). */
    private void naiveVote(String id) throws Exception {
        Counter c = es.get(g -> g.index(INDEX).id(id), Counter.class).source();
        es.index(i -> i.index(INDEX).id(id).document(c.vote()));
    }

    /** Attempts beyond the first, per operation. */
    private static double wasted(OccMetrics.Snapshot m) {
        return m.operations() == 0 ? 0 : (double) (m.totalAttempts() - m.operations()) / m.operations();
    }

    private long seqNo(String id) throws Exception {
        return es.get(g -> g.index(INDEX).id(id), ObjectNode.class).seqNo();
    }

    /**
     * {@value #PROCESSES} child JVMs with {@value #THREADS_PER_PROCESS} writers each on one document: each
     * combines its own writers, and the processes conflict with one another. Each child warms up, says
     * READY, waits for GO on stdin, votes and prints {@code DONE <conflicts> <attempts> <operations>}.
     */
    private void processes(double baseRate) throws Exception {
        String uri = System.getProperty(Benchmarks.HTTP_URI_PROPERTY);
        String what = PROCESSES + " JVMs x " + THREADS_PER_PROCESS + " writers, one document, write combining";
        if (uri == null) {
            out.printf("  %-72s %9s%n", what, "skipped (no node address for child JVMs)");
            return;
        }
        reset("processes");
        long seqBefore = seqNo("processes");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<Process> children = new ArrayList<>();
        try {
            for (int p = 0; p < PROCESSES; p++) {
                children.add(new ProcessBuilder(
                                java,
                                "-Xmx256m",
                                "-cp",
                                System.getProperty("java.class.path"),
                                Child.class.getName(),
                                uri,
                                INDEX,
                                "processes",
                                String.valueOf(THREADS_PER_PROCESS),
                                String.valueOf(COMBINED_VOTES_EACH))
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start());
            }
            List<BufferedReader> outs = new ArrayList<>();
            for (Process child : children) {
                BufferedReader r =
                        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                String line = r.readLine();
                if (!"READY".equals(line)) {
                    throw new IllegalStateException("child JVM did not get ready: " + line);
                }
                outs.add(r);
            }
            long t0 = System.nanoTime();
            for (Process child : children) {
                child.getOutputStream().write("GO\n".getBytes(StandardCharsets.UTF_8));
                child.getOutputStream().flush();
            }
            long conflicts = 0;
            long attempts = 0;
            long operations = 0;
            for (BufferedReader r : outs) {
                String[] done = r.readLine().split(" ");
                conflicts += Long.parseLong(done[1]);
                attempts += Long.parseLong(done[2]);
                operations += Long.parseLong(done[3]);
            }
            long nanos = System.nanoTime() - t0;
            long cast = (long) PROCESSES * THREADS_PER_PROCESS * COMBINED_VOTES_EACH;
            row(
                    what,
                    cast / (nanos / 1e9),
                    baseRate,
                    cast - count("processes"),
                    conflicts,
                    operations == 0 ? 0 : (double) (attempts - operations) / operations,
                    0,
                    (double) cast / (seqNo("processes") - seqBefore));
        } finally {
            for (Process child : children) {
                child.destroyForcibly();
                child.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** One process of {@link #processes}: args = node URI, index, id, writers, votes per writer. */
    static final class Child {
        private Child() {}

        public static void main(String[] args) throws Exception {
            String index = args[1];
            String id = args[2];
            int writers = Integer.parseInt(args[3]);
            int each = Integer.parseInt(args[4]);
            try (ElasticsearchClient es = Clients.connect(List.of(URI.create(args[0])))) {
                OccMetrics metrics = new OccMetrics();
                // The default backoff between processes, with attempts enough never to give up here.
                Occ occ = Occ.of(
                        b -> b.client(es).listener(metrics).retryPolicy(RetryPolicy.of(p -> p.maxAttempts(1000))));
                String warm = "warm-" + ProcessHandle.current().pid();
                es.index(i -> i.index(index).id(warm).document(new Counter(0)));
                writers(writers, 20, w -> occ.update(index, warm, Counter.class, Counter::vote));
                metrics.reset();
                System.out.println("READY");
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                if (!"GO".equals(in.readLine())) {
                    return;
                }
                writers(writers, each, w -> occ.update(index, id, Counter.class, Counter::vote));
                OccMetrics.Snapshot m = metrics.snapshot();
                System.out.println("DONE " + m.conflicts() + " " + m.totalAttempts() + " " + m.operations());
                System.out.flush();
            }
        }
    }

    private void reset(String id) throws Exception {
        es.index(i -> i.index(INDEX).id(id).document(new Counter(0)));
    }

    /** A document with the vote count and {@value #UNMAPPED_FIELDS} fields {@link Tally} does not map. */
    private void resetWide(String id) throws Exception {
        Map<String, Object> doc = wideDocument();
        es.index(i -> i.index(INDEX).id(id).document(doc));
    }

    private static Map<String, Object> wideDocument() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("_class", "com.example.Design");
        doc.put("votes", 0);
        doc.put("name", "elasticsearch");
        doc.put("owner", Map.of("team", "search", "pager", Map.of("primary", "ann", "secondary", "bob")));
        doc.put("tags", List.of("a", "b", "c"));
        doc.put("archived", false);
        doc.put("rank", 0);
        doc.put("created", "2026-12-04T12:00:00Z");
        doc.put("comments", List.of(Map.of("text", "first", "by", "ann"), Map.of("text", "second", "by", "bob")));
        doc.put("price", Map.of("amount", "12.50", "currency", "EUR"));
        doc.put("note", "from the billing service");
        return doc;
    }

    /** Indexes {@code n} documents {@code prefix0..}, plain or wide, in one bulk request, and refreshes. */
    private void resetAll(String prefix, int n, boolean wide) throws Exception {
        Map<String, Object> doc = wide ? wideDocument() : Map.of("votes", 0);
        es.bulk(b -> {
            for (int d = 0; d < n; d++) {
                String id = prefix + d;
                b.operations(o -> o.index(i -> i.index(INDEX).id(id).document(doc)));
            }
            return b;
        });
        es.indices().refresh(r -> r.index(INDEX));
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private long countWide(String id) throws Exception {
        return es.get(g -> g.index(INDEX).id(id), Tally.class).source().votes();
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
