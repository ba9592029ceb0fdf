package io.github.esrel.samples.votes;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.doc.DocRef;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccException;
import io.github.esrel.occ.OccMetrics;
import io.github.esrel.occ.Outcome;
import io.github.esrel.occ.Versioned;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.samples.support.Indices;
import io.github.esrel.samples.support.Sample;
import io.github.esrel.samples.support.Table;
import java.io.IOException;
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
 * Seed 004 (Elasticsearch versioning): a t-shirt design site where visitors vote. Concurrent voters
 * lose votes with a naive read-increment-write; a scripted {@code _update} needs painless (which this
 * node lacks); esrel's optimistic update (read, apply, write with {@code if_seq_no}/{@code if_primary_term},
 * re-read on 409) counts every vote, with the voters' calls combined into few writes (the default) or each
 * on its own. Then the seed's Adam-and-Eve story with the version read for the
 * page.
 */
public final class TshirtVotesSample extends Sample {

    private static final String INDEX = "designs";
    private static final int VOTERS = 16;
    private static final int VOTES_EACH = 50;
    private static final long START = 999;

    /** A t-shirt design and its vote balance, as the seed stores it. */
    public record Shirt(String name, long votes) {
        Shirt vote() {
            return new Shirt(name, votes + 1);
        }
    }

    /** Creates the sample. */
    public TshirtVotesSample() {
        super("votes", "T-shirt votes: naive read-increment-write loses votes, optimistic concurrency loses none");
    }

    @Override
    public void run(ElasticsearchClient es, PrintStream out) throws Exception {
        Indices.deleteIfExist(es, INDEX);
        Indices.createOneShard(es, INDEX);
        int cast = VOTERS * VOTES_EACH;
        Table table = Table.of("approach", "voters", "votes cast", "votes counted", "lost", "conflicts retried", "ms");

        out.printf(
                "%n1. %d visitors click 'thumbs up' %d times each on design 1, which starts at %d votes.%n",
                VOTERS, VOTES_EACH, START);
        out.println("   Naive: GET the document, add one, PUT it back.");
        reset(es, "naive");
        long t0 = System.nanoTime();
        vote(VOTERS, () -> {
            Shirt s = es.get(g -> g.index(INDEX).id("naive"), Shirt.class).source();
            es.index(i -> i.index(INDEX).id("naive").document(s.vote()));
        });
        long naiveCounted = votes(es, "naive") - START;
        table.row("naive read-increment-write", VOTERS, cast, naiveCounted, cast - naiveCounted, "-", ms(t0));

        out.println("   Scripted: POST _update {\"script\": \"ctx._source.votes += 1\"} with retry_on_conflict=5.");
        reset(es, "scripted");
        Occ occ = Occ.of(b -> b.client(es));
        String scripted;
        try {
            occ.scriptedUpdate(DocRef.of(INDEX, "scripted"), "ctx._source.votes += 1", Map.of(), 5);
            scripted = "works on this cluster";
            table.row("scripted _update, retry_on_conflict=5", 1, 1, votes(es, "scripted") - START, 0, "(server)", "-");
        } catch (OccException e) {
            scripted = e.getMessage();
            table.row("scripted _update, retry_on_conflict=5", "-", "-", "not available", "-", "-", "-");
        }
        out.println("   -> " + scripted);

        out.println(
                "   esrel: Occ.update(\"designs\", id, Shirt.class, Shirt::vote) - a write conditional on if_seq_no/"
                        + "if_primary_term, re-read and re-applied on 409.");
        out.println(
                "   By default one Occ combines the voters' calls: they queue behind one write in flight, and the next"
                        + " write applies every queued vote, in order. With combineWrites(false) each voter reads, writes and"
                        + " retries on its own.");
        RetryPolicy patient = RetryPolicy.of(p -> p.maxAttempts(1000)
                .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(1), 2.0, Duration.ofMillis(50))));
        Table attempts = Table.of("esrel", "writes", "votes per write", "attempts per vote: mean", "p99", "max");
        for (boolean combine : List.of(true, false)) {
            String id = combine ? "esrel" : "esrel-alone";
            String what =
                    combine ? "esrel optimistic update (combined)" : "esrel optimistic update, combineWrites(false)";
            reset(es, id);
            long seqBefore = es.get(g -> g.index(INDEX).id(id), Shirt.class).seqNo();
            OccMetrics metrics = new OccMetrics();
            Occ counted = Occ.of(
                    b -> b.client(es).listener(metrics).retryPolicy(patient).combineWrites(combine));
            long t1 = System.nanoTime();
            vote(VOTERS, () -> counted.update(INDEX, id, Shirt.class, Shirt::vote));
            long esrelCounted = votes(es, id) - START;
            long writes = es.get(g -> g.index(INDEX).id(id), Shirt.class).seqNo() - seqBefore;
            OccMetrics.Snapshot m = metrics.snapshot();
            table.row(what, VOTERS, cast, esrelCounted, cast - esrelCounted, m.conflicts(), ms(t1));
            attempts.row(
                    combine ? "combined" : "combineWrites(false)",
                    writes,
                    String.format("%.1f", (double) cast / writes),
                    String.format("%.2f", m.meanAttempts()),
                    m.attemptsPercentile(0.99),
                    m.maxAttempts());
            if (esrelCounted != cast) {
                throw new IllegalStateException(what + " counted " + esrelCounted + " of " + cast + " votes");
            }
        }
        out.println();
        table.print(out);
        out.println();
        attempts.print(out);
        if (naiveCounted >= cast) {
            throw new IllegalStateException(
                    "the naive loop was expected to lose votes, but counted " + naiveCounted + " of " + cast);
        }

        out.println("\n2. Adam and Eve look at the same page (seed 004): both see the version they read, both vote.");
        reset(es, "page");
        Versioned<Shirt> adamsPage = occ.get(INDEX, "page", Shirt.class).orElseThrow();
        Versioned<Shirt> evesPage = occ.get(INDEX, "page", Shirt.class).orElseThrow();
        // tryReplace: the sample wants to show Eve's conflict; replace() would throw OccConflictException.
        Outcome<Shirt> adam = occ.tryReplace(adamsPage, adamsPage.value().vote());
        Outcome<Shirt> eve = occ.tryReplace(evesPage, evesPage.value().vote());
        Table story = Table.of("who", "page showed", "seq_no read", "result");
        story.row(
                "Adam",
                adamsPage.value().votes(),
                adamsPage.seqNo(),
                adam.status() + " -> " + adam.value().votes() + " votes");
        story.row("Eve", evesPage.value().votes(), evesPage.seqNo(), eve.status() + " (409: the document changed)");
        Outcome<Shirt> retried = occ.update(INDEX, "page", Shirt.class, Shirt::vote);
        story.row(
                "Eve, re-read and retried",
                "-",
                "-",
                retried.status() + " -> " + retried.value().votes() + " votes");
        story.print(out);
        if (adam.status() != Outcome.Status.UPDATED
                || eve.status() != Outcome.Status.CONFLICT
                || votes(es, "page") != START + 2) {
            throw new IllegalStateException("expected Adam to win, Eve to conflict and both votes to count; got " + adam
                    + ", " + eve + ", votes " + votes(es, "page"));
        }
        out.printf(
                "   Both votes counted: %d. Lesson: send the version you read; on a conflict, re-read and re-apply.%n",
                votes(es, "page"));
    }

    private static void reset(ElasticsearchClient es, String id) throws IOException {
        es.index(i -> i.index(INDEX).id(id).document(new Shirt("elasticsearch", START)));
    }

    private static long votes(ElasticsearchClient es, String id) throws IOException {
        return es.get(g -> g.index(INDEX).id(id), Shirt.class).source().votes();
    }

    private static long ms(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private interface Vote {
        void cast() throws Exception;
    }

    /** {@code voters} threads released together, each casting {@value #VOTES_EACH} votes. */
    private static void vote(int voters, Vote vote) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(voters);
        CyclicBarrier start = new CyclicBarrier(voters);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int v = 0; v < voters; v++) {
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    for (int i = 0; i < VOTES_EACH; i++) {
                        vote.cast();
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
