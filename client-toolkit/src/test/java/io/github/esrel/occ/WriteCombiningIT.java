package io.github.esrel.occ;

import static io.github.esrel.occ.OptimisticConcurrencyIT.runConcurrently;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.GetResponse;
import io.github.esrel.doc.DocRef;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Write combining on a real node (issue 14): many threads of one process updating one document queue
 * behind one conditional write, and every caller can trace its update to the stored version that holds
 * it. Then the per-caller rules inside one combined write (a throwing function, a no-op, an upsert that
 * creates, a conditional delete that runs alone), bulk updates and single calls on the same document,
 * and several {@link Occ} instances (as several processes) that conflict only with one another.
 */
@EsrelTest
class WriteCombiningIT {

    private static final int THREADS = 16;
    private static final int EACH = 500;
    private static final int RECENT = 16;

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final ElasticsearchClient es = cluster.client();

    /** A counter that also keeps who cast the last {@value #RECENT} votes, in order. */
    record Tally(long count, List<String> recent) {
        Tally vote(String who) {
            List<String> r = new ArrayList<>(recent);
            r.add(who);
            return new Tally(count + 1, List.copyOf(r.subList(Math.max(0, r.size() - RECENT), r.size())));
        }
    }

    /** What one caller's update reported. */
    record Traced(String who, int thread, long seqNo, long primaryTerm, long count) {}

    /** The stored document as a concurrent reader saw it. */
    record Sample(long seqNo, long count, List<String> recent) {}

    @Test
    void shouldCountEveryIncrementOf16ThreadsExactlyAndTraceEachToTheStoredVersionThatHoldsIt() throws Exception {
        createIndex("tally");
        es.index(i -> i.index("tally").id("hot").document(new Tally(0, List.of())));
        OccMetrics metrics = new OccMetrics();
        Occ occ = Occ.of(b -> b.client(es).listener(metrics)); // the defaults: combining on
        AtomicBoolean writing = new AtomicBoolean(true);
        List<Sample> samples = new CopyOnWriteArrayList<>();
        ExecutorService reader = Executors.newSingleThreadExecutor();
        Future<?> sampling = reader.submit(() -> {
            while (writing.get()) {
                samples.add(sample());
            }
            return null;
        });
        long start = System.nanoTime();
        List<List<Traced>> perThread;
        try {
            perThread = runConcurrently(THREADS, w -> {
                List<Traced> mine = new ArrayList<>();
                for (int n = 0; n < EACH; n++) {
                    String who = w + ":" + n;
                    Outcome<Tally> o = occ.update("tally", "hot", Tally.class, t -> t.vote(who));
                    assertThat(o.status()).isEqualTo(Outcome.Status.UPDATED);
                    mine.add(new Traced(
                            who, w, o.seqNo(), o.primaryTerm(), o.value().count()));
                }
                return mine;
            });
        } finally {
            writing.set(false);
            sampling.get(60, TimeUnit.SECONDS);
            reader.shutdownNow();
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        Sample last = sample();
        samples.add(last);
        List<Traced> all = perThread.stream().flatMap(List::stream).toList();
        long writes = all.stream().mapToLong(Traced::seqNo).distinct().count();
        OccMetrics.Snapshot m = metrics.snapshot();
        System.out.printf(
                "combined: %d threads x %d votes in %d ms, %d writes (%.1f votes per write), %d samples: %s%n",
                THREADS, EACH, ms, writes, (double) all.size() / writes, samples.size(), m);

        int votes = THREADS * EACH;
        assertThat(last.count()).isEqualTo(votes);
        assertThat(m.written()).isEqualTo(votes);
        assertThat(m.conflicts())
                .as("writers of one Occ never conflict with one another")
                .isZero();
        assertThat(m.totalAttempts()).isEqualTo(votes);
        assertThat(writes).as("updates were combined into fewer writes").isLessThan(votes);

        // Each thread's updates are stored in the order it made them.
        for (List<Traced> mine : perThread) {
            assertThat(mine).extracting(Traced::seqNo).isSorted().doesNotHaveDuplicates();
        }
        // The value after each caller's function is a distinct count: 1..votes, none lost, none twice; and
        // the counts carried by one write are a contiguous run above those of every earlier write.
        TreeMap<Long, List<Traced>> byWrite = new TreeMap<>();
        all.forEach(
                t -> byWrite.computeIfAbsent(t.seqNo(), s -> new ArrayList<>()).add(t));
        long before = 0;
        for (List<Traced> write : byWrite.values()) {
            List<Long> counts = write.stream().map(Traced::count).sorted().toList();
            assertThat(counts.get(0)).isEqualTo(before + 1);
            assertThat(counts.get(counts.size() - 1)).isEqualTo(before + counts.size());
            before += counts.size();
        }
        assertThat(before).isEqualTo(votes);

        // Every stored version a reader saw holds exactly the updates whose outcomes name it or an earlier
        // version, and its "recent" list names their callers, in the order of their counts.
        List<Traced> byCount =
                all.stream().sorted(Comparator.comparingLong(Traced::count)).toList();
        for (Sample s : samples) {
            List<Traced> upTo =
                    byCount.stream().filter(t -> t.seqNo() <= s.seqNo()).toList();
            assertThat(s.count()).as("count stored at seq_no %d", s.seqNo()).isEqualTo(upTo.size());
            List<String> expected = upTo.subList(Math.max(0, upTo.size() - RECENT), upTo.size()).stream()
                    .map(Traced::who)
                    .toList();
            assertThat(s.recent()).as("callers stored at seq_no %d", s.seqNo()).isEqualTo(expected);
        }
    }

    @Test
    void shouldGiveEachCallerOfOneCombinedWriteItsOwnOutcome() throws Exception {
        createIndex("mixed");
        es.index(i -> i.index("mixed").id("1").document(new Tally(0, List.of())));
        OccMetrics metrics = new OccMetrics();
        Occ occ = Occ.of(b -> b.client(es).listener(metrics));
        DocRef doc = DocRef.of("mixed", "1");
        ExecutorService pool = Executors.newCachedThreadPool();
        try (Held held = new Held(occ, doc, pool)) {
            Future<Outcome<Tally>> a = held.first(t -> t.vote("a"));
            Future<Outcome<Tally>> b = held.queue(() -> occ.update(doc, Tally.class, t -> t.vote("b")));
            IllegalStateException mine = new IllegalStateException("c's own failure");
            Future<Outcome<Tally>> c = held.queue(() -> occ.update(doc, Tally.class, t -> {
                throw mine;
            }));
            Future<Outcome<Tally>> d = held.queue(() -> occ.update(doc, Tally.class, t -> t));
            Future<Outcome<Tally>> e = held.queue(() -> occ.update(doc, Tally.class, t -> t.vote("e")));
            held.release();

            Outcome<Tally> first = a.get(60, TimeUnit.SECONDS);
            assertThat(first.status()).isEqualTo(Outcome.Status.UPDATED);
            assertThat(first.value().count()).isEqualTo(1);
            assertThatThrownBy(() -> c.get(60, TimeUnit.SECONDS)).cause().isSameAs(mine);
            Outcome<Tally> ob = b.get(60, TimeUnit.SECONDS);
            Outcome<Tally> od = d.get(60, TimeUnit.SECONDS);
            Outcome<Tally> oe = e.get(60, TimeUnit.SECONDS);
            assertThat(List.of(ob, od, oe))
                    .extracting(Outcome::status)
                    .containsExactly(Outcome.Status.UPDATED, Outcome.Status.NOOP, Outcome.Status.UPDATED);
            assertThat(List.of(ob, od, oe)).extracting(o -> o.value().count()).containsExactly(2L, 2L, 3L);
            assertThat(List.of(ob, od, oe))
                    .extracting(Outcome::seqNo)
                    .as("one write carried b, d and e")
                    .containsOnly(oe.seqNo());
            assertThat(oe.seqNo()).isGreaterThan(first.seqNo());
            assertThat(List.of(first, ob, od, oe)).extracting(Outcome::attempts).containsOnly(1);
            GetResponse<Tally> stored = es.get(g -> g.index("mixed").id("1"), Tally.class);
            assertThat(stored.seqNo()).isEqualTo(oe.seqNo());
            assertThat(stored.source().recent()).containsExactly("a", "b", "e");
        }
        OccMetrics.Snapshot m = metrics.snapshot();
        assertThat(m.operations())
                .as("one onOutcome per caller that got an outcome")
                .isEqualTo(4);
        assertThat(m.written()).isEqualTo(3);
        assertThat(m.count(Outcome.Status.NOOP)).isEqualTo(1);
    }

    @Test
    void shouldCreateOnceWhenQueuedUpsertsFindNoDocumentAndRunAConditionalDeleteAlone() throws Exception {
        createIndex("created");
        es.index(i -> i.index("created").id("1").document(new Tally(0, List.of())));
        Occ occ = Occ.of(b -> b.client(es));
        DocRef doc = DocRef.of("created", "1");
        Supplier<Tally> initial = () -> new Tally(100, List.of());
        ExecutorService pool = Executors.newCachedThreadPool();
        try (Held held = new Held(occ, doc, pool)) {
            Future<Outcome<Tally>> first = held.firstDeleteIf(t -> t.count() == 0);
            Future<Outcome<Tally>> a = held.queue(() -> occ.upsert(doc, Tally.class, initial, t -> t.vote("a")));
            Future<Outcome<Tally>> b = held.queue(() -> occ.upsert(doc, Tally.class, initial, t -> t.vote("b")));
            Future<Outcome<Tally>> c = held.queue(() -> occ.update(doc, Tally.class, t -> t.vote("c")));
            Future<Outcome<Tally>> gone = held.queue(() -> occ.deleteIf(doc, Tally.class, t -> t.count() == 103));
            Future<Outcome<Tally>> again =
                    held.queue(() -> occ.upsert(doc, Tally.class, initial, t -> t.vote("again")));
            Future<Outcome<Tally>> late = held.queue(() -> occ.update(doc, Tally.class, t -> t.vote("late")));
            held.release();

            assertThat(first.get(60, TimeUnit.SECONDS).status()).isEqualTo(Outcome.Status.DELETED);
            List<Outcome<Tally>> created =
                    List.of(a.get(60, TimeUnit.SECONDS), b.get(60, TimeUnit.SECONDS), c.get(60, TimeUnit.SECONDS));
            assertThat(created)
                    .extracting(Outcome::status)
                    .containsExactly(Outcome.Status.CREATED, Outcome.Status.UPDATED, Outcome.Status.UPDATED);
            assertThat(created).extracting(o -> o.value().count()).containsExactly(101L, 102L, 103L);
            assertThat(created)
                    .extracting(Outcome::seqNo)
                    .as("one create carried all three")
                    .containsOnly(created.get(0).seqNo());
            Outcome<Tally> deleted = gone.get(60, TimeUnit.SECONDS);
            assertThat(deleted.status()).isEqualTo(Outcome.Status.DELETED);
            assertThat(deleted.value().count()).isEqualTo(103);
            assertThat(deleted.seqNo()).isGreaterThan(created.get(0).seqNo());
            Outcome<Tally> recreated = again.get(60, TimeUnit.SECONDS);
            Outcome<Tally> after = late.get(60, TimeUnit.SECONDS);
            assertThat(recreated.status()).isEqualTo(Outcome.Status.CREATED);
            assertThat(after.status()).isEqualTo(Outcome.Status.UPDATED);
            assertThat(after.seqNo()).isEqualTo(recreated.seqNo()).isGreaterThan(deleted.seqNo());
            assertThat(es.get(g -> g.index("created").id("1"), Tally.class)
                            .source()
                            .recent())
                    .containsExactly("again", "late");
        }
    }

    @Test
    void shouldKeepBulkUpdatesAndCombinedSingleCallsOnOneDocumentExact() throws Exception {
        createIndex("both");
        int docs = 20;
        for (int d = 0; d < docs; d++) {
            String id = "d" + d;
            es.index(i -> i.index("both").id(id).document(new Tally(0, List.of())));
        }
        RetryPolicy patient = RetryPolicy.of(p -> p.maxAttempts(1000));
        Occ occ = Occ.of(b -> b.client(es).retryPolicy(patient));
        int singles = 8;
        int singleVotes = 200;
        int bulks = 2;
        int bulkRepeats = 20;
        runConcurrently(singles + bulks, w -> {
            if (w < singles) {
                for (int n = 0; n < singleVotes; n++) {
                    String who = "s" + w + ":" + n;
                    occ.update("both", "d0", Tally.class, t -> t.vote(who));
                }
            } else {
                for (int r = 0; r < bulkRepeats; r++) {
                    BulkUpdate<Tally> bulk = occ.bulk(Tally.class);
                    for (int d = 0; d < docs; d++) {
                        String who = "b" + w + ":" + r;
                        bulk.update("both", "d" + d, t -> t.vote(who));
                    }
                    bulk.execute();
                }
            }
            return null;
        });
        assertThat(es.get(g -> g.index("both").id("d0"), Tally.class).source().count())
                .isEqualTo((long) singles * singleVotes + bulks * bulkRepeats);
        for (int d = 1; d < docs; d++) {
            String id = "d" + d;
            assertThat(es.get(g -> g.index("both").id(id), Tally.class).source().count())
                    .isEqualTo(bulks * bulkRepeats);
        }
    }

    @Test
    void shouldLetSeveralOccInstancesConflictOnlyWithOneAnotherAndCountExactly() throws Exception {
        createIndex("processes");
        es.index(i -> i.index("processes").id("hot").document(new Tally(0, List.of())));
        int processes = 4;
        int threadsEach = 4;
        int votesEach = 100;
        OccMetrics metrics = new OccMetrics();
        List<Occ> instances = new ArrayList<>();
        for (int p = 0; p < processes; p++) {
            // As separate processes would: one Occ each; conflicts between them back off with jitter.
            instances.add(
                    Occ.of(b -> b.client(es).listener(metrics).retryPolicy(RetryPolicy.of(r -> r.maxAttempts(1000)))));
        }
        runConcurrently(processes * threadsEach, w -> {
            Occ mine = instances.get(w % processes);
            for (int n = 0; n < votesEach; n++) {
                String who = w + ":" + n;
                mine.update("processes", "hot", Tally.class, t -> t.vote(who));
            }
            return null;
        });
        OccMetrics.Snapshot m = metrics.snapshot();
        System.out.println("4 Occ instances x 4 threads: " + m);
        int votes = processes * threadsEach * votesEach;
        assertThat(es.get(g -> g.index("processes").id("hot"), Tally.class)
                        .source()
                        .count())
                .isEqualTo(votes);
        assertThat(m.written()).isEqualTo(votes);
        assertThat(m.gaveUp()).isZero();
    }

    @Test
    void shouldRunAnUpdateMadeFromInsideACombinedFunctionOnItsOwn() throws IOException {
        createIndex("nested");
        es.index(i -> i.index("nested").id("outer").document(new Tally(0, List.of())));
        es.index(i -> i.index("nested").id("inner").document(new Tally(0, List.of())));
        Occ occ = Occ.of(b -> b.client(es));
        Outcome<Tally> outer = occ.update("nested", "outer", Tally.class, t -> {
            occ.update("nested", "inner", Tally.class, i -> i.vote("from outer")); // would wait for itself if queued
            return t.vote("outer");
        });
        assertThat(outer.status()).isEqualTo(Outcome.Status.UPDATED);
        assertThat(es.get(g -> g.index("nested").id("inner"), Tally.class)
                        .source()
                        .count())
                .isEqualTo(1);
    }

    // --- helpers -------------------------------------------------------------------------------

    private Sample sample() throws IOException {
        GetResponse<Tally> got = es.get(g -> g.index("tally").id("hot"), Tally.class);
        return new Sample(got.seqNo(), got.source().count(), got.source().recent());
    }

    private void createIndex(String index) throws IOException {
        es.indices()
                .create(c -> c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
    }

    /**
     * Holds one combined write in flight (its function waits on a latch after the read) so that the calls
     * queued behind it are known, in order, and all go into the next write.
     */
    private static final class Held implements AutoCloseable {
        private final Occ occ;
        private final DocRef doc;
        private final ExecutorService pool;
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        Held(Occ occ, DocRef doc, ExecutorService pool) {
            this.occ = occ;
            this.doc = doc;
            this.pool = pool;
        }

        Future<Outcome<Tally>> first(UnaryOperator<Tally> fn) throws InterruptedException {
            return started(pool.submit(() -> occ.update(doc, Tally.class, held(fn))));
        }

        Future<Outcome<Tally>> firstDeleteIf(Predicate<Tally> condition) throws InterruptedException {
            AtomicBoolean once = new AtomicBoolean();
            return started(pool.submit(() -> occ.deleteIf(doc, Tally.class, t -> {
                hold(once);
                return condition.test(t);
            })));
        }

        /** Submits a call and waits until it is queued behind the ones before it. */
        Future<Outcome<Tally>> queue(java.util.concurrent.Callable<Outcome<Tally>> call) throws InterruptedException {
            int before = occ.combining(doc);
            Future<Outcome<Tally>> f = pool.submit(call);
            awaitTrue(() -> occ.combining(doc) == before + 1);
            return f;
        }

        void release() {
            release.countDown();
        }

        private UnaryOperator<Tally> held(UnaryOperator<Tally> fn) {
            AtomicBoolean once = new AtomicBoolean();
            return t -> {
                hold(once);
                return fn.apply(t);
            };
        }

        /** The first time only: says the attempt is in flight, and waits for the release. */
        private void hold(AtomicBoolean once) {
            if (once.compareAndSet(false, true)) {
                entered.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private Future<Outcome<Tally>> started(Future<Outcome<Tally>> f) throws InterruptedException {
            assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();
            return f;
        }

        @Override
        public void close() {
            release.countDown();
            pool.shutdownNow();
        }
    }

    private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 60 s");
            }
            Thread.sleep(2);
        }
    }
}
