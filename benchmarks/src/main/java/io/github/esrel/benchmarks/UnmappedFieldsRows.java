package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.benchmarks.Votes.Design;
import io.github.esrel.benchmarks.Votes.Tally;
import io.github.esrel.occ.BulkUpdate;
import io.github.esrel.occ.Occ;
import java.io.PrintStream;
import java.util.function.UnaryOperator;

/**
 * What keeping the fields a class does not map costs, for {@link OccBenchmark}: the same wide documents
 * ({@link Votes#resetWide}) updated through {@link Tally}, which maps only the count, and through {@link Design},
 * which maps them whole, in alternating rounds. Both sides send and index the same documents, so the ratio is what
 * esrel's merge costs and nothing else; what a bigger document costs the node is the rows of {@link OccBenchmark}
 * that compare the wide documents with the plain ones.
 */
final class UnmappedFieldsRows {

    /** Rounds per side of each row, after one untimed round of each. */
    private static final int ROUNDS = 12;

    private static final int WRITERS = 16;
    private static final int VOTES_EACH = 100;
    private static final int BULK_DOCS = 1000;
    private static final int BULK_ROUNDS = 5;

    private final ElasticsearchClient es;
    private final PrintStream out;
    private final BenchRecord record;
    private final Votes counters;
    private final String index;

    UnmappedFieldsRows(ElasticsearchClient es, PrintStream out, BenchRecord record, Votes counters, String index) {
        this.es = es;
        this.out = out;
        this.record = record;
        this.counters = counters;
        this.index = index;
    }

    void run(Occ occ) throws Exception {
        out.printf(
                "  a document with %d fields the class does not map: a class that maps only the count (B) against one"
                        + " that maps it whole (A), %d alternating rounds:%n",
                Votes.UNMAPPED_FIELDS, ROUNDS);
        out.printf("  %-72s %9s %9s %8s %10s %9s%n", "what", "A ops/s", "B ops/s", "B/A", "median r/r", "spread");
        hotDocument(occ);
        bulk(occ);
    }

    /** 16 writers on one wide document, write combining. */
    private void hotDocument(Occ occ) throws Exception {
        counters.resetWide("wide-whole");
        counters.resetWide("wide-part");
        AlternatingRounds.Round whole = () -> {
            Votes.writers(WRITERS, VOTES_EACH, w -> occ.update(index, "wide-whole", Design.class, Design::vote));
            return (long) WRITERS * VOTES_EACH;
        };
        AlternatingRounds.Round part = () -> {
            Votes.writers(WRITERS, VOTES_EACH, w -> occ.update(index, "wide-part", Tally.class, Tally::vote));
            return (long) WRITERS * VOTES_EACH;
        };
        AlternatingRounds.run(1, whole, part);
        AlternatingRounds.Result r = AlternatingRounds.run(ROUNDS, whole, part);
        long cast = (long) (ROUNDS + 1) * WRITERS * VOTES_EACH;
        if (counters.countWide("wide-part") != cast || counters.countWide("wide-whole") != cast) {
            throw new IllegalStateException("votes lost on the wide documents");
        }
        // Both documents got the same votes: they are equal field for field only if Tally's writes kept the rest.
        if (!design("wide-part").equals(design("wide-whole"))) {
            throw new IllegalStateException("the fields the class does not map changed");
        }
        r.report(
                out,
                record,
                "occ",
                "16 writers, one document with " + Votes.UNMAPPED_FIELDS + " fields the class does not map (B) vs a"
                        + " class that maps it whole (A), write combining",
                "votes/s");
    }

    private Design design(String id) throws Exception {
        return es.get(g -> g.index(index).id(id), Design.class).source();
    }

    /** {@code Occ.bulk} on {@value #BULK_DOCS} fresh wide documents, indexed before the rounds. */
    private void bulk(Occ occ) throws Exception {
        for (int round = 0; round <= BULK_ROUNDS; round++) {
            counters.resetAll(prefix("whole", round), BULK_DOCS, true);
            counters.resetAll(prefix("part", round), BULK_DOCS, true);
        }
        int[] rounds = {0, 0};
        AlternatingRounds.Round whole = () -> bulkRound(occ, Design.class, Design::vote, prefix("whole", rounds[0]++));
        AlternatingRounds.Round part = () -> bulkRound(occ, Tally.class, Tally::vote, prefix("part", rounds[1]++));
        AlternatingRounds.run(1, whole, part);
        AlternatingRounds.Result r = AlternatingRounds.run(BULK_ROUNDS, whole, part);
        r.report(
                out,
                record,
                "occ",
                "Occ.bulk, " + BULK_DOCS + " fresh documents with " + Votes.UNMAPPED_FIELDS + " fields the class does"
                        + " not map (B) vs a class that maps them whole (A)",
                "docs/s");
    }

    private static String prefix(String side, int round) {
        return "wide-bulk-" + side + "-" + round + "-";
    }

    /** One bulk of +1 on the documents {@code prefix0..}. */
    private <T> long bulkRound(Occ occ, Class<T> type, UnaryOperator<T> vote, String prefix) {
        BulkUpdate<T> b = occ.bulk(type);
        for (int d = 0; d < BULK_DOCS; d++) {
            b.update(index, prefix + d, vote);
        }
        b.execute();
        return BULK_DOCS;
    }
}
