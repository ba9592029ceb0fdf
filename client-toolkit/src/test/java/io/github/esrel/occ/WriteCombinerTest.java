package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The combiner's queue, lead and batch logic with a fake write function: a counter in memory that the
 * runner reads, changes with every operation of the batch in order, and "writes" once. Deterministic:
 * an attempt can be held on a latch so that the operations queued behind it are known.
 */
class WriteCombinerTest {

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final FakeDocument doc = new FakeDocument();
    private final List<Duration> slept = new CopyOnWriteArrayList<>();
    /** The combiner's clock, in nanoseconds: it stands still unless a test moves it. */
    private final AtomicLong now = new AtomicLong();

    private WriteCombiner<String, Inc> combiner = combiner(WriteCombiner.DEFAULT_MAX_BATCH);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private WriteCombiner<String, Inc> combiner(int maxBatch) {
        // A clock that stands still: a backoff of d makes the next leader sleep exactly d, and an attempt takes no
        // time, so that no leader waits for callers to queue again (see lingering()).
        return new WriteCombiner<>(doc, slept::add, now::get, maxBatch, WriteCombiner.DEFAULT_MAX_LINGER);
    }

    /**
     * A combiner whose attempts each take {@code attempt} on its clock, and whose leaders may wait that long for the
     * callers of the last attempt to queue again.
     */
    private WriteCombiner<String, Inc> lingering(Duration attempt) {
        doc.during = () -> now.addAndGet(attempt.toNanos());
        return new WriteCombiner<>(doc, slept::add, now::get, WriteCombiner.DEFAULT_MAX_BATCH, attempt);
    }

    /** One caller's operation: add one to the counter, unless it is a solo "reset" or a failing one. */
    static final class Inc extends WriteCombiner.Op {
        final String name;
        final boolean throwing;
        long after = -1;
        Thread ranOn;

        Inc(String name, boolean solo, boolean throwing) {
            super(solo);
            this.name = name;
            this.throwing = throwing;
        }

        static Inc inc(String name) {
            return new Inc(name, false, false);
        }
    }

    /** The fake store: one counter, and a record of every attempt. */
    static final class FakeDocument implements WriteCombiner.Runner<Inc> {
        long value; // deliberately not atomic: the combiner must never run two attempts at once
        final AtomicInteger inFlight = new AtomicInteger();
        volatile int maxInFlight;
        final List<List<String>> batches = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        final Map<Integer, CountDownLatch> gates = new ConcurrentHashMap<>();
        final Set<Integer> conflictIn = ConcurrentHashMap.newKeySet();
        final Set<Integer> crashIn = ConcurrentHashMap.newKeySet();
        final AtomicInteger attempts = new AtomicInteger();
        /** The memo each attempt found (null: none); each attempt leaves its number there. */
        final List<Integer> memos = new CopyOnWriteArrayList<>();
        /** Run as each attempt begins: a test moves the combiner's clock there. */
        volatile Runnable during = () -> {};

        @Override
        public CompletableFuture<Duration> attempt(List<Inc> batch, WriteCombiner.Memo memo) {
            return CompletableFuture.completedFuture(run(batch, memo)); // as a blocking runner's: complete at once
        }

        Duration run(List<Inc> batch, WriteCombiner.Memo memo) {
            // Recorded before the attempt is counted: a test that saw attempt n begin also sees its batch, so
            // an attempt on another key that the test starts next is recorded after it.
            batches.add(batch.stream().map(op -> op.name).toList());
            threads.add(Thread.currentThread());
            during.run();
            Integer found = memo.get();
            memos.add(found == null ? 0 : found);
            int n = attempts.incrementAndGet();
            memo.set(n);
            maxInFlight = Math.max(maxInFlight, inFlight.incrementAndGet());
            try {
                CountDownLatch gate = gates.get(n);
                if (gate != null) {
                    gate.await(30, TimeUnit.SECONDS);
                }
                if (crashIn.contains(n)) {
                    throw new IllegalStateException("store down in attempt " + n);
                }
                long next = value;
                List<Inc> applied = new ArrayList<>();
                for (Inc op : batch) {
                    if (op.throwing) {
                        op.finish(); // fails alone; the others still apply
                        continue;
                    }
                    next = op.solo ? 0 : next + 1;
                    op.after = next;
                    op.ranOn = Thread.currentThread();
                    applied.add(op);
                }
                if (conflictIn.contains(n)) {
                    return Duration.ofMillis(7); // nothing written; every op is left for another attempt
                }
                value = next;
                applied.forEach(WriteCombiner.Op::finish);
                return Duration.ZERO;
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            } finally {
                inFlight.decrementAndGet();
            }
        }
    }

    @Test
    void shouldApplyEveryOperationOfManyThreadsOnceAndInEachThreadsOrderWithOneAttemptInFlight() throws Exception {
        manyThreads();
    }

    @Test
    void shouldApplyEveryOperationOnceAndInOrderAlsoWhenLeadersWaitForCallers() throws Exception {
        combiner = lingering(Duration.ofMillis(1));
        manyThreads();
    }

    /**
     * Non-blocking lanes: attempts complete on another thread (as requests complete on the client's I/O threads), and
     * each caller chains its next operation on the last one's future, from one caller thread: every operation applies
     * once, each chain's in its order, one attempt in flight, backoffs waited on the timer, and the lane is gone after.
     */
    @Test
    void shouldApplyEveryChainedAsyncOperationOnceAndInOrderWithOneAttemptInFlight() throws Exception {
        ExecutorService io = Executors.newFixedThreadPool(2);
        try {
            WriteCombiner<String, Inc> async = new WriteCombiner<>(
                    (batch, memo) -> CompletableFuture.supplyAsync(() -> doc.run(batch, memo), io),
                    slept::add,
                    System::nanoTime,
                    64,
                    WriteCombiner.DEFAULT_MAX_LINGER);
            doc.conflictIn.add(3); // a conflict: the lane backs off 7 ms on the timer, then tries again
            int chains = 100;
            int each = 20;
            List<CompletableFuture<List<Long>>> all = new ArrayList<>();
            for (int c = 0; c < chains; c++) {
                all.add(chain(async, c, 0, each, new ArrayList<>()));
            }
            List<Long> seen = new ArrayList<>();
            for (CompletableFuture<List<Long>> chain : all) {
                List<Long> mine = chain.get(60, TimeUnit.SECONDS);
                assertThat(mine).as("a chain's operations apply in its order").isSorted();
                seen.addAll(mine);
            }
            assertThat(doc.value).isEqualTo((long) chains * each);
            assertThat(seen).hasSize(chains * each).doesNotHaveDuplicates();
            assertThat(doc.maxInFlight).isEqualTo(1);
            assertThat(doc.attempts.get()).as("operations were combined").isLessThan(chains * each / 4);
            assertThat(slept).as("no thread slept for the backoff").isEmpty();
            assertThat(async.lanes()).isZero();
        } finally {
            io.shutdownNow();
        }
    }

    /** A caller's operations one after another, each submitted when the last one's future completes. */
    private CompletableFuture<List<Long>> chain(
            WriteCombiner<String, Inc> async, int caller, int n, int each, List<Long> seen) {
        if (n == each) {
            return CompletableFuture.completedFuture(seen);
        }
        Inc op = Inc.inc(caller + ":" + n);
        return async.submitAsync("hot", op).thenCompose(done -> {
            assertThat(op.finished()).isTrue();
            seen.add(op.after);
            return chain(async, caller, n + 1, each, seen);
        });
    }

    @Test
    void shouldFailTheAsyncOperationsOfAnAttemptThatThrows() throws Exception {
        doc.crashIn.add(1);
        WriteCombiner<String, Inc> async = new WriteCombiner<>(
                (batch, memo) -> CompletableFuture.supplyAsync(() -> doc.run(batch, memo)),
                slept::add,
                System::nanoTime,
                64,
                Duration.ZERO);
        Inc first = Inc.inc("first");
        async.submitAsync("hot", first).get(10, TimeUnit.SECONDS);
        assertThat(first.crash()).hasMessage("store down in attempt 1");
        Inc next = Inc.inc("next");
        async.submitAsync("hot", next).get(10, TimeUnit.SECONDS);
        assertThat(next.crash()).isNull();
        assertThat(next.after).isEqualTo(1);
        assertThat(async.lanes()).isZero();
    }

    private void manyThreads() throws Exception {
        int threads = 16;
        int each = 2000;
        List<Future<List<Long>>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                List<Long> seen = new ArrayList<>();
                for (int i = 0; i < each; i++) {
                    Inc op = Inc.inc(thread + ":" + i);
                    combiner.submit("hot", op);
                    assertThat(op.finished()).isTrue();
                    seen.add(op.after);
                }
                return seen;
            }));
        }
        List<Long> all = new ArrayList<>();
        for (Future<List<Long>> f : futures) {
            List<Long> seen = f.get(60, TimeUnit.SECONDS);
            assertThat(seen)
                    .as("a thread's own operations apply in its order")
                    .isSorted()
                    .doesNotHaveDuplicates();
            all.addAll(seen);
        }
        Collections.sort(all);
        assertThat(doc.value).isEqualTo((long) threads * each);
        assertThat(all)
                .as("each operation saw its own increment: none lost, none twice")
                .hasSize(threads * each)
                .doesNotHaveDuplicates()
                .startsWith(1L)
                .endsWith((long) threads * each);
        assertThat(doc.maxInFlight).isEqualTo(1);
        assertThat(combiner.lanes()).as("an idle combiner keeps no lane").isZero();
    }

    @Test
    void shouldKeepTheRunnersMemoWhileTheKeyIsBusyAndForTheGraceAfterItsLaneCloses() throws Exception {
        CountDownLatch first = gate(1);
        Future<Inc> a = submit("hot", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        Future<Inc> b = submitQueued("hot", Inc.inc("b"), 2);
        first.countDown();
        a.get(30, TimeUnit.SECONDS);
        b.get(30, TimeUnit.SECONDS);
        awaitTrue(() -> combiner.lanes() == 0);
        now.addAndGet(WriteCombiner.MEMO_GRACE.toNanos());
        combiner.submit("hot", Inc.inc("c"));
        now.addAndGet(WriteCombiner.MEMO_GRACE.toNanos() + 1);
        combiner.submit("hot", Inc.inc("d"));
        combiner.submit("other", Inc.inc("e"));
        assertThat(doc.memos)
                .as("b's attempt finds what a's left; c, in a new lane within the grace, finds what b left; d, past"
                        + " the grace, and e, of another key, find nothing")
                .containsExactly(0, 1, 2, 0, 0);
        assertThat(combiner.lanes()).isZero();
    }

    @Test
    void shouldKeepTheMemosOfAtMostSoManyClosedLanes() throws Exception {
        int keys = WriteCombiner.MAX_PARKED_MEMOS + 1;
        for (int k = 0; k < keys; k++) {
            combiner.submit("key-" + k, Inc.inc("first"));
        }
        for (int k = 0; k < keys; k++) {
            combiner.submit("key-" + k, Inc.inc("again"));
        }
        List<Integer> again = doc.memos.subList(keys, 2 * keys);
        assertThat(again.subList(0, keys - 1))
                .as("each key's second lane finds the memo of its first")
                .containsExactlyElementsOf(
                        IntStream.rangeClosed(1, keys - 1).boxed().toList());
        assertThat(again.get(keys - 1))
                .as("one key more than are kept: none kept for it")
                .isZero();
    }

    @Test
    void shouldCombineEverythingQueuedBehindTheAttemptInFlightInQueueOrderAndHandTheLeadOn() throws Exception {
        CountDownLatch first = gate(1);
        Future<Inc> a = submit("hot", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        Future<Inc> b = submitQueued("hot", Inc.inc("b"), 2);
        Future<Inc> c = submitQueued("hot", Inc.inc("c"), 3);
        Future<Inc> d = submitQueued("hot", Inc.inc("d"), 4);
        first.countDown();
        assertThat(List.of(a.get(), b.get(), c.get(), d.get()))
                .extracting(op -> op.after)
                .containsExactly(1L, 2L, 3L, 4L);
        assertThat(doc.batches).containsExactly(List.of("a"), List.of("b", "c", "d"));
        assertThat(doc.threads.get(1))
                .as("b, the head of the queue, led the second attempt")
                .isSameAs(b.get().ranOn);
        assertThat(doc.threads.get(1)).isNotSameAs(doc.threads.get(0));
        assertThat(combiner.lanes()).isZero();
    }

    @Test
    void shouldWaitForTheCallersTheLastAttemptEndedToQueueAgainSoThatWritersDoNotSplitIntoCohorts() throws Exception {
        combiner = lingering(Duration.ofSeconds(60)); // a leader may wait 30 s: the test does not depend on speed
        Future<Inc> b = aThen(() -> submitQueued("hot", Inc.inc("b"), 2));
        awaitTrue(() -> combiner.waitingForCallers("hot"));
        Inc again = Inc.inc("a again"); // a's caller, back with its next operation
        combiner.submit("hot", again);
        b.get(30, TimeUnit.SECONDS);
        assertThat(doc.batches)
                .as("b, leading, waited for the caller a's attempt ended: one write carries both")
                .containsExactly(List.of("a"), List.of("b", "a again"));
        assertThat(again.after).isEqualTo(3);
    }

    @Test
    void shouldStopWaitingForCallersThatDoNotComeBack() throws Exception {
        combiner = lingering(Duration.ofMillis(20));
        Future<Inc> b = aThen(() -> submitQueued("hot", Inc.inc("b"), 2));
        assertThat(b.get(30, TimeUnit.SECONDS).after).isEqualTo(2);
        assertThat(doc.batches).containsExactly(List.of("a"), List.of("b"));
        awaitTrue(() -> combiner.lanes() == 0);
    }

    @Test
    void shouldWaitLessAndLessOftenAfterWaitsThatRanOut() {
        assertThat(IntStream.rangeClosed(1, 8)
                        .map(WriteCombiner::skipsAfter)
                        .boxed()
                        .toList())
                .as("takes that do not wait after 1, 2, ... waits in a row that ran out")
                .containsExactly(1, 3, 7, 15, 31, 63, 63, 63);
        assertThat(WriteCombiner.skipsAfter(Integer.MAX_VALUE)).isEqualTo(WriteCombiner.MAX_LINGER_SKIPS);
    }

    @Test
    void shouldCarryWhoWillComeBackToTheKeysNextLaneWithTheMemo() throws Exception {
        combiner = lingering(Duration.ofSeconds(60));
        List<Future<Inc>> bc =
                aThen(() -> List.of(submitQueued("hot", Inc.inc("b"), 2), submitQueued("hot", Inc.inc("c"), 3)));
        awaitTrue(() -> combiner.waitingForCallers("hot"));
        combiner.submit("hot", Inc.inc("a again"));
        for (Future<Inc> f : bc) {
            f.get(30, TimeUnit.SECONDS);
        }
        awaitTrue(() -> combiner.lanes() == 0); // the three callers were in one write: nobody queued behind it
        Future<Inc> d = submit("hot", Inc.inc("d"));
        awaitTrue(() -> combiner.waitingForCallers("hot"));
        Future<Inc> e = submitQueued("hot", Inc.inc("e"), 2);
        Future<Inc> f = submit("hot", Inc.inc("f"));
        assertThat(List.of(d.get(30, TimeUnit.SECONDS), e.get(30, TimeUnit.SECONDS), f.get(30, TimeUnit.SECONDS)))
                .extracting(op -> op.after)
                .containsExactly(5L, 6L, 7L);
        assertThat(doc.batches)
                .as("d, the first of the key's new lane, waited for as many callers as the last write carried")
                .containsExactly(List.of("a"), List.of("b", "c", "a again"), List.of("d", "e", "f"));
    }

    @Test
    void shouldWithdrawALeaderInterruptedWhileItWaitsForCallers() throws Exception {
        combiner = lingering(Duration.ofSeconds(60));
        Inc bOp = Inc.inc("b");
        Thread[] bThread = new Thread[1];
        boolean[] interruptedAfter = new boolean[1];
        Future<?> b = aThen(() -> {
            Future<?> f = pool.submit(() -> {
                bThread[0] = Thread.currentThread();
                combiner.submit("hot", bOp);
                interruptedAfter[0] = Thread.currentThread().isInterrupted();
                return null;
            });
            awaitTrue(() -> combiner.pending("hot") == 2);
            return f;
        });
        awaitTrue(() -> combiner.waitingForCallers("hot"));
        bThread[0].interrupt();
        b.get(30, TimeUnit.SECONDS);
        assertThat(bOp.withdrawn()).as("b never ran").isTrue();
        assertThat(interruptedAfter[0])
                .as("the interrupt is kept for the caller")
                .isTrue();
        assertThat(doc.attempts.get()).isEqualTo(1);
        awaitTrue(() -> combiner.lanes() == 0);
        now.addAndGet(WriteCombiner.MEMO_GRACE.toNanos() + 1); // else "later" would wait for a's caller
        Inc later = Inc.inc("later");
        combiner.submit("hot", later);
        assertThat(later.after).isEqualTo(2);
    }

    @Test
    void shouldKeepEachKeyApart() throws Exception {
        CountDownLatch first = gate(1);
        Future<Inc> a = submit("one", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        Inc other = Inc.inc("other");
        combiner.submit("two", other); // does not wait behind "one"
        assertThat(other.finished()).isTrue();
        first.countDown();
        a.get();
        assertThat(doc.batches).containsExactly(List.of("a"), List.of("other"));
    }

    @Test
    void shouldTakeAtMostMaxBatchOperationsPerAttempt() throws Exception {
        combiner = combiner(2);
        CountDownLatch first = gate(1);
        Future<Inc> a = submit("hot", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        List<Future<Inc>> queued = new ArrayList<>();
        for (String name : List.of("b", "c", "d")) {
            queued.add(submitQueued("hot", Inc.inc(name), queued.size() + 2));
        }
        first.countDown();
        a.get();
        for (Future<Inc> f : queued) {
            f.get();
        }
        assertThat(doc.batches).containsExactly(List.of("a"), List.of("b", "c"), List.of("d"));
    }

    @Test
    void shouldRunASoloOperationAloneAndKeepTheQueueOrderAroundIt() throws Exception {
        CountDownLatch first = gate(1);
        Future<Inc> a = submit("hot", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        Future<Inc> b = submitQueued("hot", Inc.inc("b"), 2);
        Future<Inc> reset = submitQueued("hot", new Inc("reset", true, false), 3);
        Future<Inc> c = submitQueued("hot", Inc.inc("c"), 4);
        Future<Inc> d = submitQueued("hot", Inc.inc("d"), 5);
        first.countDown();
        assertThat(List.of(a.get(), b.get(), reset.get(), c.get(), d.get()))
                .extracting(op -> op.after)
                .containsExactly(1L, 2L, 0L, 1L, 2L);
        assertThat(doc.batches).containsExactly(List.of("a"), List.of("b"), List.of("reset"), List.of("c", "d"));
    }

    @Test
    void shouldBackOffAndRetryLeftOperationsFirstTogetherWithNewcomers() throws Exception {
        doc.conflictIn.add(2);
        CountDownLatch first = gate(1);
        CountDownLatch second = gate(2);
        Future<Inc> a = submit("hot", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        Future<Inc> b = submitQueued("hot", Inc.inc("b"), 2);
        Future<Inc> c = submitQueued("hot", Inc.inc("c"), 3);
        first.countDown();
        awaitTrue(() -> doc.attempts.get() == 2); // b and c are in the attempt that will conflict
        Future<Inc> late = submitQueued("hot", Inc.inc("late"), 3);
        second.countDown();
        assertThat(List.of(a.get(), b.get(), c.get(), late.get()))
                .extracting(op -> op.after)
                .containsExactly(1L, 2L, 3L, 4L);
        assertThat(doc.batches).containsExactly(List.of("a"), List.of("b", "c"), List.of("b", "c", "late"));
        assertThat(slept)
                .as("the lane waited the backoff once before the retry")
                .containsExactly(Duration.ofMillis(7));
    }

    @Test
    void shouldFailOnlyTheOperationWhoseFunctionFails() throws Exception {
        CountDownLatch first = gate(1);
        Future<Inc> a = submit("hot", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        Future<Inc> b = submitQueued("hot", Inc.inc("b"), 2);
        Future<Inc> bad = submitQueued("hot", new Inc("bad", false, true), 3);
        Future<Inc> c = submitQueued("hot", Inc.inc("c"), 4);
        first.countDown();
        assertThat(List.of(a.get(), b.get(), c.get()))
                .extracting(op -> op.after)
                .containsExactly(1L, 2L, 3L);
        assertThat(bad.get().finished()).isTrue();
        assertThat(bad.get().after).isEqualTo(-1);
        assertThat(doc.value).isEqualTo(3);
    }

    @Test
    void shouldFailEveryOperationOfAnAttemptThatThrowsAndCarryOnWithTheNext() throws Exception {
        doc.crashIn.add(2);
        CountDownLatch first = gate(1);
        Future<Inc> a = submit("hot", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        Future<Inc> b = submitQueued("hot", Inc.inc("b"), 2);
        Future<Inc> c = submitQueued("hot", Inc.inc("c"), 3);
        first.countDown();
        assertThat(a.get().crash()).isNull();
        assertThat(b.get().crash()).hasMessage("store down in attempt 2");
        assertThat(c.get().crash()).isSameAs(b.get().crash());
        Inc after = Inc.inc("after");
        combiner.submit("hot", after);
        assertThat(after.after).isEqualTo(2);
        assertThat(combiner.lanes()).isZero();
    }

    @Test
    void shouldWithdrawAnInterruptedOperationThatHasNotRunAndKeepTheInterrupt() throws Exception {
        CountDownLatch first = gate(1);
        Future<Inc> a = submit("hot", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        Map<String, Boolean> flag = new HashMap<>();
        CountDownLatch interruptedDone = new CountDownLatch(1);
        Inc b = Inc.inc("b");
        Thread bThread = new Thread(() -> {
            combiner.submit("hot", b);
            synchronized (flag) {
                flag.put("interrupted", Thread.currentThread().isInterrupted());
            }
            interruptedDone.countDown();
        });
        bThread.start();
        awaitTrue(() -> combiner.pending("hot") == 2);
        Future<Inc> c = submitQueued("hot", Inc.inc("c"), 3);
        bThread.interrupt();
        assertThat(interruptedDone.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(b.withdrawn()).isTrue();
        assertThat(b.finished()).isFalse();
        synchronized (flag) {
            assertThat(flag.get("interrupted")).isTrue();
        }
        first.countDown();
        assertThat(a.get().after).isEqualTo(1);
        assertThat(c.get().after).isEqualTo(2);
        assertThat(doc.batches).containsExactly(List.of("a"), List.of("c"));
    }

    @Test
    void shouldNotWithdrawAnOperationWhoseAttemptIsInFlight() throws Exception {
        CountDownLatch first = gate(1);
        CountDownLatch second = gate(2);
        Future<Inc> a = submit("hot", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        Future<Inc> b = submitQueued("hot", Inc.inc("b"), 2);
        Inc c = Inc.inc("c");
        boolean[] interruptedAfter = new boolean[1];
        Thread cThread = new Thread(() -> {
            combiner.submit("hot", c);
            interruptedAfter[0] = Thread.currentThread().isInterrupted();
        });
        cThread.start();
        awaitTrue(() -> combiner.pending("hot") == 3);
        first.countDown();
        awaitTrue(() -> doc.attempts.get() == 2); // b leads an attempt that carries c
        cThread.interrupt();
        second.countDown();
        cThread.join(30_000);
        assertThat(c.withdrawn()).isFalse();
        assertThat(c.finished()).isTrue();
        assertThat(c.after).isEqualTo(3);
        assertThat(interruptedAfter[0])
                .as("the interrupt is kept for the caller")
                .isTrue();
        assertThat(a.get().after).isEqualTo(1);
        assertThat(b.get().after).isEqualTo(2);
    }

    @Test
    void shouldRefuseASubmitFromInsideAnAttempt() {
        List<Throwable> seen = new ArrayList<>();
        WriteCombiner<String, Inc> nested = new WriteCombiner<>(
                (batch, memo) -> {
                    assertThat(WriteCombiner.insideAttempt()).isTrue();
                    try {
                        combiner.submit("other", Inc.inc("inner"));
                    } catch (IllegalStateException e) {
                        seen.add(e);
                    }
                    batch.forEach(WriteCombiner.Op::finish);
                    return CompletableFuture.completedFuture(Duration.ZERO);
                },
                slept::add,
                () -> 0L,
                10,
                Duration.ZERO);
        nested.submit("hot", Inc.inc("outer"));
        assertThat(seen)
                .singleElement()
                .extracting(Throwable::getMessage)
                .isEqualTo("an operation submitted from inside an attempt would wait for itself");
        assertThat(WriteCombiner.insideAttempt()).isFalse();
    }

    // --- helpers -------------------------------------------------------------------------------

    private CountDownLatch gate(int attempt) {
        CountDownLatch latch = new CountDownLatch(1);
        doc.gates.put(attempt, latch);
        return latch;
    }

    private Future<Inc> submit(String key, Inc op) {
        return pool.submit(() -> {
            combiner.submit(key, op);
            return op;
        });
    }

    /**
     * Holds "a"'s attempt on "hot" while {@code queueBehind} queues operations behind it, then lets it end; returns,
     * once a is done, what {@code queueBehind} returned. a's caller, were it a writer in a loop, would come back now.
     */
    private <T> T aThen(Callable<T> queueBehind) throws Exception {
        CountDownLatch first = gate(1);
        Future<Inc> a = submit("hot", Inc.inc("a"));
        awaitTrue(() -> doc.attempts.get() == 1);
        T queued = queueBehind.call();
        first.countDown();
        a.get(30, TimeUnit.SECONDS);
        return queued;
    }

    /** Submits and waits until the lane holds {@code pending} operations, so that the queue order is known. */
    private Future<Inc> submitQueued(String key, Inc op, int pending) throws InterruptedException {
        Future<Inc> f = submit(key, op);
        awaitTrue(() -> combiner.pending(key) == pending);
        return f;
    }

    private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 30 s");
            }
            Thread.sleep(1);
        }
    }
}
