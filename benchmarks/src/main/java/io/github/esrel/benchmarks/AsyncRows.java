package io.github.esrel.benchmarks;

import io.github.esrel.benchmarks.Votes.Counter;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccAsync;
import io.github.esrel.occ.Outcome;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the non-blocking form of {@link Occ} buys and costs, for {@link OccBenchmark}, in alternating rounds against the
 * blocking form on the same node: 16 writers on one document with one caller thread against 16 threads, and one
 * writer's call against the blocking call.
 */
final class AsyncRows {

    /** Rounds per side of each row, after one untimed round of each. */
    private static final int ROUNDS = 12;

    private static final int WRITERS = 16;
    private static final int VOTES_EACH = 100;
    private static final int SINGLE_VOTES = 300;

    private final PrintStream out;
    private final BenchRecord record;
    private final Votes counters;
    private final String index;

    AsyncRows(PrintStream out, BenchRecord record, Votes counters, String index) {
        this.out = out;
        this.record = record;
        this.counters = counters;
        this.index = index;
    }

    void run(Occ occ) throws Exception {
        out.printf("  the non-blocking form (B) against the blocking one (A), %d alternating rounds:%n", ROUNDS);
        out.printf("  %-72s %9s %9s %8s %10s %9s%n", "what", "A ops/s", "B ops/s", "B/A", "median r/r", "spread");
        OccAsync async = occ.async();
        hotDocument(occ, async);
        oneWriter(occ, async);
    }

    /** 16 writers on one document: 16 threads calling the blocking form, or one thread starting 16 chains of votes. */
    private void hotDocument(Occ occ, OccAsync async) throws Exception {
        counters.reset("async-hot-blocking");
        counters.reset("async-hot-async");
        AlternatingRounds.Round blocking = () -> {
            Votes.writers(
                    WRITERS, VOTES_EACH, w -> occ.update(index, "async-hot-blocking", Counter.class, Counter::vote));
            return (long) WRITERS * VOTES_EACH;
        };
        AlternatingRounds.Round nonBlocking = () -> {
            // One caller thread: each writer's next vote is chained on its last one, as 16 blocking writers vote.
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                writers.add(votes(async, "async-hot-async", VOTES_EACH));
            }
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).join();
            return (long) WRITERS * VOTES_EACH;
        };
        AlternatingRounds.run(1, blocking, nonBlocking);
        AlternatingRounds.Result r = AlternatingRounds.run(ROUNDS, blocking, nonBlocking);
        long cast = (long) (ROUNDS + 1) * WRITERS * VOTES_EACH;
        if (counters.count("async-hot-blocking") != cast || counters.count("async-hot-async") != cast) {
            throw new IllegalStateException("votes lost on the hot documents");
        }
        r.report(
                out,
                record,
                "occ",
                "16 writers, one document: async API, one caller thread (B) vs blocking API, 16 threads (A)",
                "votes/s");
    }

    /** One writer voting {@value #SINGLE_VOTES} times, one call after the other. */
    private void oneWriter(Occ occ, OccAsync async) throws Exception {
        counters.reset("async-one-blocking");
        counters.reset("async-one-async");
        AlternatingRounds.Round blocking = () -> {
            for (int v = 0; v < SINGLE_VOTES; v++) {
                occ.update(index, "async-one-blocking", Counter.class, Counter::vote);
            }
            return SINGLE_VOTES;
        };
        AlternatingRounds.Round nonBlocking = () -> {
            votes(async, "async-one-async", SINGLE_VOTES).join();
            return SINGLE_VOTES;
        };
        AlternatingRounds.run(1, blocking, nonBlocking);
        AlternatingRounds.Result r = AlternatingRounds.run(ROUNDS, blocking, nonBlocking);
        r.report(out, record, "occ", "1 writer: async call (B) vs blocking call (A)", "votes/s");
    }

    /** {@code n} votes on {@code id}, each chained on the one before. */
    private CompletableFuture<Void> votes(OccAsync async, String id, int n) {
        CompletableFuture<Outcome<Counter>> chain = async.update(index, id, Counter.class, Counter::vote);
        for (int v = 1; v < n; v++) {
            chain = chain.thenCompose(done -> async.update(index, id, Counter.class, Counter::vote));
        }
        return chain.thenApply(done -> null);
    }
}
