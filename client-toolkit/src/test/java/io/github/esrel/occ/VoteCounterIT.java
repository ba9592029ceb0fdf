package io.github.esrel.occ;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 004's t-shirt voting site on a real node: concurrent voters lose votes with a naive
 * read-increment-write, and lose none with esrel's optimistic update, one document at a time, in
 * bulk, and when the document must first be created.
 */
@EsrelTest
class VoteCounterIT {

    private static final int WRITERS = 16;
    private static final int VOTES_EACH = 500;

    @Cluster
    static final EsCluster cluster = EsCluster.builder().build();

    private final ElasticsearchClient es = cluster.client();

    /** A design and its vote count, as the seed stores it. */
    record Shirt(String name, long votes) {
        Shirt vote() {
            return new Shirt(name, votes + 1);
        }
    }

    /** Contended counters need more attempts than the default; the backoff keeps writers from colliding in step. */
    static final RetryPolicy CONTENDED = RetryPolicy.of(b -> b.maxAttempts(1000)
        .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(1), 2.0, Duration.ofMillis(50))));

    @Test
    void shouldLoseVotesWithANaiveReadIncrementWrite() throws Exception {
        createIndex("designs-naive");
        es.index(i -> i.index("designs-naive").id("1").document(new Shirt("elasticsearch", 0)));
        int each = 100;
        runConcurrently(WRITERS, w -> {
            for (int v = 0; v < each; v++) {
                Shirt s = es.get(g -> g.index("designs-naive").id("1"), Shirt.class).source();
                es.index(i -> i.index("designs-naive").id("1").document(s.vote()));
            }
            return null;
        });
        long counted = es.get(g -> g.index("designs-naive").id("1"), Shirt.class).source().votes();
        System.out.printf("naive: %d writers x %d votes = %d cast, %d counted, %d lost%n", WRITERS, each, WRITERS * each,
            counted, WRITERS * each - counted);
        assertThat(counted).as("the naive loop loses votes on this node").isLessThan(WRITERS * each);
    }

    @Test
    void shouldCountEveryVoteOf16ConcurrentWritersWithOptimisticUpdates() throws Exception {
        createIndex("designs");
        es.index(i -> i.index("designs").id("1").document(new Shirt("elasticsearch", 0)));
        OccMetrics metrics = new OccMetrics();
        Occ occ = Occ.of(b -> b.client(es).retryPolicy(CONTENDED).listener(metrics));
        long start = System.nanoTime();
        runConcurrently(WRITERS, w -> {
            for (int v = 0; v < VOTES_EACH; v++) {
                Outcome<Shirt> o = occ.update("designs", "1", Shirt.class, Shirt::vote).orThrow();
                assertThat(o.status()).isEqualTo(Outcome.Status.UPDATED);
            }
            return null;
        });
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        OccMetrics.Snapshot m = metrics.snapshot();
        System.out.printf("esrel: %d writers x %d votes in %d ms: %s%n", WRITERS, VOTES_EACH, ms, m);

        Shirt stored = es.get(g -> g.index("designs").id("1"), Shirt.class).source();
        assertThat(stored.votes()).isEqualTo(WRITERS * VOTES_EACH);
        assertThat(m.written()).isEqualTo(WRITERS * VOTES_EACH);
        assertThat(m.gaveUp()).isZero();
        assertThat(m.conflicts()).as("16 writers on one document do conflict").isPositive();
        assertThat(m.totalAttempts()).isEqualTo(m.operations() + m.conflicts());
    }

    @Test
    void shouldLetExactlyOneCreatorWinAndApplyEveryOtherVoteOnTop() throws Exception {
        createIndex("designs-new");
        Occ occ = Occ.of(b -> b.client(es).retryPolicy(CONTENDED));
        int rounds = 10;
        for (int r = 0; r < rounds; r++) {
            String id = "new-" + r;
            List<Outcome<Shirt>> outcomes = runConcurrently(WRITERS, w ->
                occ.upsert("designs-new", id, null, Shirt.class, () -> new Shirt("design " + id, 0), Shirt::vote).orThrow());
            assertThat(outcomes).filteredOn(o -> o.status() == Outcome.Status.CREATED).hasSize(1);
            assertThat(outcomes).filteredOn(o -> o.status() == Outcome.Status.UPDATED).hasSize(WRITERS - 1);
            assertThat(es.get(g -> g.index("designs-new").id(id), Shirt.class).source().votes()).isEqualTo(WRITERS);
        }
    }

    @Test
    void shouldRetryOnlyTheConflictingItemsOfABulk() throws Exception {
        createIndex("designs-bulk");
        int docs = 200;
        Occ occ = Occ.of(b -> b.client(es).refresh(Refresh.False));
        BulkUpdate<Shirt> create = occ.bulk(Shirt.class);
        for (int d = 0; d < docs; d++) {
            String id = "d" + d;
            create.upsert("designs-bulk", id, null, () -> new Shirt(id, 0), Shirt::vote);
        }
        BulkOutcome<Shirt> created = create.execute().orThrow();
        assertThat(created.count(Outcome.Status.CREATED)).isEqualTo(docs);
        assertThat(created.rounds()).isEqualTo(1);

        // Every document appears twice in one bulk: both items read the same seq_no, the second write
        // conflicts with the first and must be re-read and applied in round 2.
        BulkUpdate<Shirt> bulk = occ.bulk(Shirt.class);
        for (int copy = 0; copy < 2; copy++) {
            for (int d = 0; d < docs; d++) {
                bulk.update("designs-bulk", "d" + d, null, Shirt::vote);
            }
        }
        List<BulkRound> rounds = new ArrayList<>();
        List<Integer> before = new ArrayList<>();
        BulkOutcome<Shirt> done = bulk.listener(new BulkUpdateListener() {
            @Override
            public void beforeRound(int round, int items) {
                before.add(items);
            }

            @Override
            public void afterRound(BulkRound round) {
                rounds.add(round);
            }
        }).execute().orThrow();
        assertThat(before).containsExactly(2 * docs, docs);
        assertThat(rounds.get(0).written()).isEqualTo(docs);
        assertThat(rounds.get(0).retried()).isEqualTo(docs);
        assertThat(rounds.get(1).written()).isEqualTo(docs);
        assertThat(done.rounds()).isEqualTo(2);
        assertThat(done.count(Outcome.Status.UPDATED)).isEqualTo(2 * docs);
        assertThat(done.item(0).attempts()).isEqualTo(1);
        assertThat(done.item(docs).attempts()).isEqualTo(2);
        assertThat(done.item(docs).conflicts()).isEqualTo(1);

        // Now four bulks over the same documents run at once, five times each: conflicts across bulks.
        OccMetrics metrics = new OccMetrics();
        Occ counted = Occ.of(b -> b.client(es).retryPolicy(CONTENDED).listener(metrics));
        int bulks = 4;
        int repeats = 5;
        runConcurrently(bulks, w -> {
            for (int r = 0; r < repeats; r++) {
                BulkUpdate<Shirt> b = counted.bulk(Shirt.class).batchSize(50);
                for (int d = 0; d < docs; d++) {
                    b.update("designs-bulk", "d" + d, null, Shirt::vote);
                }
                b.execute().orThrow();
            }
            return null;
        });
        es.indices().refresh(r -> r.index("designs-bulk"));
        for (int d = 0; d < docs; d++) {
            String id = "d" + d;
            assertThat(es.get(g -> g.index("designs-bulk").id(id), Shirt.class).source().votes())
                .as("votes of %s", id).isEqualTo(3 + bulks * repeats);
        }
        System.out.println("concurrent bulks: " + metrics.snapshot());
        assertThat(metrics.snapshot().written()).isEqualTo((long) docs * bulks * repeats);
    }

    private void createIndex(String index) throws IOException {
        es.indices().create(c -> c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
    }

    interface Writer<R> {
        R run(int writer) throws Exception;
    }

    /** Runs {@code n} writers released at the same moment; returns their results, rethrowing any failure. */
    static <R> List<R> runConcurrently(int n, Writer<R> writer) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CyclicBarrier start = new CyclicBarrier(n);
        AtomicInteger ids = new AtomicInteger();
        try {
            List<Future<R>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(pool.submit((Callable<R>) () -> {
                    int me = ids.getAndIncrement();
                    start.await(30, TimeUnit.SECONDS);
                    return writer.run(me);
                }));
            }
            List<R> results = new ArrayList<>();
            for (Future<R> f : futures) {
                results.add(f.get(120, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    static Map<String, Object> doc(Object... kv) {
        java.util.LinkedHashMap<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }
}
