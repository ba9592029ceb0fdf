package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.benchmarks.Votes.Counter;
import io.github.esrel.benchmarks.Votes.Tally;
import io.github.esrel.doc.DocRef;
import io.github.esrel.micrometer.EsrelMicrometer;
import io.github.esrel.occ.BulkUpdate;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccListener;
import io.github.esrel.occ.OccMetrics;
import io.github.esrel.occ.Outcome;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.RetryPolicy;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;

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
    private static final String ONE_WRITER_INDEX = "bench-occ-one";
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

    /** Rounds per side of the several JVMs' row, and the one writer's votes in its rounds. */
    private static final int PROCESSES_ROUNDS = 8;

    private static final int PROCESSES_BASELINE_VOTES = 300;

    private final ElasticsearchClient es;
    private final PrintStream out;

    /**
     * Timed rounds of each side of the bulk rows (one by one against the bulk; the bulk with and without fields the
     * class does not map), alternating.
     */
    private static final int BULK_ROUNDS = 3;

    private final BenchRecord record;
    private final Votes counters;

    OccBenchmark(ElasticsearchClient es, PrintStream out, BenchRecord record) {
        this.es = es;
        this.out = out;
        this.record = record;
        this.counters = new Votes(es, INDEX);
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

    /** Only the row of several JVMs on one document and its one-writer baseline ({@code -Desrel.bench=occ-jvms}). */
    void runProcessesOnly() throws Exception {
        warmedUp("several JVMs on one document");
        processes();
        es.indices().delete(d -> d.index(INDEX));
    }

    /** Only the rows of the non-blocking form against the blocking one ({@code -Desrel.bench=occ-async}). */
    void runAsyncOnly() throws Exception {
        Occ occ = warmedUp("the non-blocking form");
        new AsyncRows(out, record, counters, INDEX).run(occ);
        es.indices().delete(d -> d.index(INDEX));
    }

    /**
     * For a benchmark of some rows alone: the index, and an updater warmed up on it as {@link #run} warms up (JIT,
     * pooled connections, the node's writes to one document); prints the rows' title.
     */
    private Occ warmedUp(String title) throws Exception {
        es.indices()
                .create(c -> c.index(INDEX).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        Occ occ = Occ.of(b -> b.client(es).retryPolicy(PATIENT));
        counters.reset("warmup");
        for (int r = 0; r < WARMUP_ROUNDS; r++) {
            Votes.writers(WRITERS, VOTES_EACH, w -> occ.update(INDEX, "warmup", Counter.class, Counter::vote));
        }
        out.printf("%nOptimistic concurrency: %s%n", title);
        return occ;
    }

    void run() throws Exception {
        es.indices()
                .create(c -> c.index(INDEX).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        RetryPolicy patient = PATIENT;
        Occ occ = Occ.of(b -> b.client(es).retryPolicy(patient));

        // Warm up both paths (JIT, 16 pooled connections) so that the first measured row is not penalized, and the
        // node: its writes to one document got 5x faster over the first 15 seconds of 16 writers.
        counters.reset("warmup");
        Votes.writers(1, 200, w -> occ.update(INDEX, "warmup", Counter.class, Counter::vote));
        counters.reset("warmup-naive");
        for (int r = 0; r < WARMUP_ROUNDS; r++) {
            Votes.writers(WRITERS, VOTES_EACH, w -> occ.update(INDEX, "warmup", Counter.class, Counter::vote));
            Votes.writers(WRITERS, VOTES_EACH, w -> counters.naiveVote("warmup-naive"));
        }

        counters.reset("single");
        long baseline =
                Votes.writers(1, BASELINE_VOTES, w -> occ.update(INDEX, "single", Counter.class, Counter::vote));
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
        counters.reset("combined");
        long seqBefore = counters.seqNo("combined");
        int combinedVotes = WRITERS * COMBINED_VOTES_EACH;
        long combinedNanos = Votes.writers(
                WRITERS, COMBINED_VOTES_EACH, w -> combined.update(INDEX, "combined", Counter.class, Counter::vote));
        OccMetrics.Snapshot cm = combinedMetrics.snapshot();
        row(
                "16 writers, one document, esrel, write combining (default)",
                combinedVotes / (combinedNanos / 1e9),
                baseRate,
                combinedVotes - counters.count("combined"),
                cm,
                (double) combinedVotes / (counters.seqNo("combined") - seqBefore));

        // The same on a document that also holds fields the class does not map (another service's, _class, nested
        // objects, arrays): esrel keeps them, at the cost of one more serialization and a merge per call.
        OccMetrics wideMetrics = new OccMetrics();
        Occ wide = Occ.of(b -> b.client(es).listener(wideMetrics).retryPolicy(patient));
        counters.resetWide("combined-wide");
        long wideSeqBefore = counters.seqNo("combined-wide");
        long wideNanos = Votes.writers(
                WRITERS, COMBINED_VOTES_EACH, w -> wide.update(INDEX, "combined-wide", Tally.class, Tally::vote));
        OccMetrics.Snapshot wm = wideMetrics.snapshot();
        row(
                "16 writers, one document with " + Votes.UNMAPPED_FIELDS + " fields the class does not map, combining",
                combinedVotes / (wideNanos / 1e9),
                baseRate,
                combinedVotes - counters.countWide("combined-wide"),
                wm,
                (double) combinedVotes / (counters.seqNo("combined-wide") - wideSeqBefore));

        processes();

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
            counters.reset(id);
            long nanos =
                    Votes.writers(WRITERS, VOTES_EACH, w -> contended.update(INDEX, id, Counter.class, Counter::vote));
            OccMetrics.Snapshot m = metrics.snapshot();
            row(
                    "16 writers, one document, combining off, " + shape.getKey(),
                    votes / (nanos / 1e9),
                    baseRate,
                    votes - counters.count(id),
                    m,
                    1);
        }

        OccMetrics spread = new OccMetrics();
        Occ uncontended = Occ.of(b -> b.client(es).listener(spread).retryPolicy(patient));
        for (int w = 0; w < WRITERS; w++) {
            counters.reset("own-" + w);
        }
        long own = Votes.writers(
                WRITERS, VOTES_EACH, w -> uncontended.update(INDEX, "own-" + w, Counter.class, Counter::vote));
        long ownLost = 0;
        for (int w = 0; w < WRITERS; w++) {
            ownLost += VOTES_EACH - counters.count("own-" + w);
        }
        row(
                "16 writers, esrel, one document each (uncontended)",
                votes / (own / 1e9),
                baseRate,
                ownLost,
                spread.snapshot(),
                1);

        counters.reset("naive");
        long naive = Votes.writers(WRITERS, VOTES_EACH, w -> counters.naiveVote("naive"));
        plainRow("16 writers, naive read-increment-write, one document (loses votes)", naive, baseRate, "naive");

        hotDocumentRounds(patient);
        new UnmappedFieldsRows(es, out, record, counters, INDEX).run(occ);
        new AsyncRows(out, record, counters, INDEX).run(occ);

        if (occ.scriptingAvailable()) {
            counters.reset("scripted");
            long scripted = Votes.writers(
                    WRITERS,
                    VOTES_EACH,
                    w -> occ.scriptedUpdate(DocRef.of(INDEX, "scripted"), "ctx._source.votes += 1", Map.of(), 1000)
                            .orThrow());
            plainRow(
                    "16 writers, scripted _update retry_on_conflict=1000, one document",
                    scripted,
                    baseRate,
                    "scripted");
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
            counters.resetAll(prefix, docs, false);
            long oneByOne = Votes.timed(() -> {
                for (int d = 0; d < docs; d++) {
                    occ.update(INDEX, prefix + d, Counter.class, Counter::vote);
                }
            });
            long bulk = Votes.timed(() -> {
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
        long oneByOne = Votes.median(oneByOneRounds);
        long bulk = Votes.median(bulkRounds);
        // What keeping unmapped fields costs a bulk: the same bulk on fresh documents the class maps whole and on fresh
        // documents with fields it does not map, in alternating rounds (the median of each side).
        long[] plainBulk = new long[BULK_ROUNDS];
        long[] wideBulk = new long[BULK_ROUNDS];
        for (int r = 0; r < BULK_ROUNDS; r++) {
            String plainPrefix = "bulk-plain-" + r + "-";
            String widePrefix = "bulk-wide-" + r + "-";
            counters.resetAll(plainPrefix, docs, false);
            counters.resetAll(widePrefix, docs, true);
            plainBulk[r] = Votes.timed(() -> {
                BulkUpdate<Counter> b = occ.bulk(Counter.class);
                for (int d = 0; d < docs; d++) {
                    b.update(INDEX, plainPrefix + d, Counter::vote);
                }
                b.execute();
            });
            wideBulk[r] = Votes.timed(() -> {
                BulkUpdate<Tally> b = occ.bulk(Tally.class);
                for (int d = 0; d < docs; d++) {
                    b.update(INDEX, widePrefix + d, Tally::vote);
                }
                b.execute();
            });
        }
        long plainMedian = Votes.median(plainBulk);
        long wideMedian = Votes.median(wideBulk);
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
                "Occ.bulk, fresh documents with " + Votes.UNMAPPED_FIELDS + " fields the class does not map (median)",
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

    /**
     * The row of {@value #WRITERS} writers x {@value #VOTES_EACH} votes on document {@code id} that no {@link Occ}
     * listener counted: no conflicts or attempts to report.
     */
    private void plainRow(String what, long nanos, double baseRate, String id) throws Exception {
        int votes = WRITERS * VOTES_EACH;
        row(what, votes / (nanos / 1e9), baseRate, votes - counters.count(id), 0, 0, 1, 1);
    }

    /** A row whose attempts an {@link OccMetrics} counted: its conflicts, wasted attempts and p99 attempts. */
    private void row(
            String what, double rate, double baseRate, long lost, OccMetrics.Snapshot m, double votesPerWrite) {
        row(what, rate, baseRate, lost, m.conflicts(), wasted(m), m.attemptsPercentile(0.99), votesPerWrite);
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
            counters.reset(setup.id());
            // Warm up the metered path too (its meters are registered on first use).
            Votes.writers(WRITERS, 20, w -> metered.update(INDEX, setup.id(), Counter.class, Counter::vote));
            AlternatingRounds.Round off = () -> {
                Votes.writers(
                        WRITERS, METERS_VOTES_EACH, w -> plain.update(INDEX, setup.id(), Counter.class, Counter::vote));
                return (long) WRITERS * METERS_VOTES_EACH;
            };
            AlternatingRounds.Round on = () -> {
                Votes.writers(
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
        counters.reset("vs-one");
        counters.reset("vs-combining");
        counters.reset("vs-naive");
        AlternatingRounds.Round one = () -> {
            Votes.writers(1, VOTES_EACH, w -> occ.update(INDEX, "vs-one", Counter.class, Counter::vote));
            return VOTES_EACH;
        };
        AlternatingRounds.Round combined = () -> {
            Votes.writers(WRITERS, VOTES_EACH, w -> occ.update(INDEX, "vs-combining", Counter.class, Counter::vote));
            return (long) WRITERS * VOTES_EACH;
        };
        AlternatingRounds.Round naive = () -> {
            Votes.writers(WRITERS, VOTES_EACH, w -> counters.naiveVote("vs-naive"));
            return (long) WRITERS * VOTES_EACH;
        };
        AlternatingRounds.run(VERSUS_WARMUP_ROUNDS, naive, combined);
        out.printf(
                "  the hot document in %d alternating rounds of each side (%d votes per writer), after %d untimed:%n",
                VERSUS_ROUNDS, VOTES_EACH, VERSUS_WARMUP_ROUNDS);
        out.printf("  %-72s %9s %9s %8s %10s %9s%n", "what", "A votes/s", "B votes/s", "B/A", "median r/r", "spread");
        long before = counters.count("vs-combining");
        alternatingRow("16 writers, one document, write combining (B) vs 1 writer (A)", one, combined);
        alternatingRow("16 writers, one document, write combining (B) vs the naive loop (A)", naive, combined);
        long lost = 2L * VERSUS_ROUNDS * WRITERS * VOTES_EACH - (counters.count("vs-combining") - before);
        if (lost != 0) {
            throw new IllegalStateException("write combining lost " + lost + " votes");
        }
    }

    private void alternatingRow(String what, AlternatingRounds.Round a, AlternatingRounds.Round b) throws Exception {
        AlternatingRounds.run(VERSUS_ROUNDS, a, b).report(out, record, "occ", what, "votes/s");
    }

    /** Attempts beyond the first, per operation. */
    private static double wasted(OccMetrics.Snapshot m) {
        return m.operations() == 0 ? 0 : (double) (m.totalAttempts() - m.operations()) / m.operations();
    }

    /**
     * The processes' row ({@link OccProcesses}): combining within each child JVM, conflicts between them, in
     * alternating rounds with one writer of this JVM on a document of its own, while the children wait.
     */
    private void processes() throws Exception {
        String uri = System.getProperty(Benchmarks.HTTP_URI_PROPERTY);
        String what = OccProcesses.PROCESSES + " JVMs x " + OccProcesses.THREADS_PER_PROCESS
                + " writers, one document, write combining";
        if (uri == null) {
            out.printf("  %-72s %9s%n", what, "skipped (no node address for child JVMs)");
            return;
        }
        counters.reset("processes");
        // The one writer's document is in an index of its own: seq_no counts a shard's writes, and the votes per write
        // of the row count only the processes'.
        es.indices()
                .create(c -> c.index(ONE_WRITER_INDEX)
                        .settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        new Votes(es, ONE_WRITER_INDEX).reset("processes-one");
        Occ occ = Occ.of(b -> b.client(es).retryPolicy(PATIENT));
        OccProcesses.Run[] timed = {OccProcesses.Run.NONE}; // the children's rounds since the untimed one
        try (OccProcesses children = OccProcesses.start(uri, INDEX, "processes", VOTES_EACH)) {
            AlternatingRounds.Round one = () -> {
                Votes.writers(
                        1,
                        PROCESSES_BASELINE_VOTES,
                        w -> occ.update(ONE_WRITER_INDEX, "processes-one", Counter.class, Counter::vote));
                return PROCESSES_BASELINE_VOTES;
            };
            AlternatingRounds.Round jvms = () -> {
                OccProcesses.Run run = children.round();
                timed[0] = timed[0].plus(run);
                return run.cast();
            };
            AlternatingRounds.run(1, one, jvms);
            long untimed = timed[0].cast();
            timed[0] = OccProcesses.Run.NONE;
            long seqBefore = counters.seqNo("processes");
            AlternatingRounds.Result r = AlternatingRounds.run(PROCESSES_ROUNDS, one, jvms);
            OccProcesses.Run t = timed[0];
            long lost = untimed + t.cast() - counters.count("processes");
            double perWrite = (double) t.cast() / (counters.seqNo("processes") - seqBefore);
            double wasted = t.wasted();
            out.printf(
                    "  %-72s %,9.0f %7.2fx %6d %10d %7.2f %4s %6.1f   (median of %d rounds against 1 writer: %,.0f"
                            + " votes/s; spread %.1f %%)%n",
                    what,
                    r.b(),
                    r.medianRoundRatio(),
                    lost,
                    t.conflicts(),
                    wasted,
                    "-",
                    perWrite,
                    PROCESSES_ROUNDS,
                    r.a(),
                    r.spread() * 100);
            record.add("occ", what, r.b(), "votes/s", r.medianRoundRatio(), BenchRecord.Better.HIGHER, r.spread());
            record.add(
                    "occ",
                    what + ": wasted attempts per vote",
                    wasted,
                    "attempts",
                    Double.NaN,
                    BenchRecord.Better.LOWER,
                    Double.NaN);
        } finally {
            es.indices().delete(d -> d.index(ONE_WRITER_INDEX));
        }
    }
}
