package io.github.esrel.occ;

import io.github.esrel.internal.Checks;
import io.github.esrel.internal.Futures;
import io.github.esrel.retry.Sleeper;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Write combining for hot documents: the operations of many threads on one document (one key) queue in
 * a lane, and one of the waiting threads at a time, the leader, takes the whole queue as a batch and runs
 * one attempt for it ({@link Runner#attempt}: read once, apply every operation in queue order, write
 * once). So at most one write per key is in flight from this combiner, and writers of one process no
 * longer conflict with one another.
 *
 * <h2>Why it is correct</h2>
 * <ul>
 *   <li>Order: the lane is FIFO. A batch is a prefix of the queue; operations the runner leaves for
 *       another attempt go back to the front in their order, ahead of newer ones. A caller blocks until
 *       its operation is done, so a caller's own operations on one key enter the queue, and are applied,
 *       in the order it made them.</li>
 *   <li>One attempt at a time per key: only the thread whose operation holds {@code lead} runs
 *       attempts, and {@code lead} passes from one operation to another only under the lane's lock
 *       ({@link #handOff}), to the head of the queue, when the leader's own operation is done (so nobody
 *       leads for long on behalf of others) or withdrawn.</li>
 *   <li>Nothing is stranded: a lane with queued operations always has a leader; the leader that leaves
 *       an empty lane removes it from the map under the lane's lock and marks it closed, and a submitter
 *       that finds a closed lane makes a new one ({@link #enqueue}).</li>
 *   <li>Solo operations (a conditional delete) are never combined: a batch is either one solo operation
 *       or a run of combinable ones that stops before the next solo one.</li>
 *   <li>Backoff is per lane: after an attempt that leaves operations to retry, whoever leads next waits
 *       until {@code notBefore} before reading again, so the whole lane backs off together.</li>
 *   <li>Interrupts: an operation still queued when its thread is interrupted is withdrawn (nothing was
 *       written for it). One that is part of an attempt in flight cannot be withdrawn, since its write
 *       may land: its thread waits for the result and keeps its interrupt flag set. A leader whose flag is
 *       set withdraws its own operation and hands off instead of starting an attempt, so that an
 *       interrupted thread does not carry other callers' writes.</li>
 *   <li>Memory: a queued operation is a blocked caller, so a lane holds at most one operation per thread
 *       that waits on it; an idle key has no lane. A batch takes at most {@code maxBatch} operations. The
 *       memo of a lane that closes is kept for its key's next lane for {@link #MEMO_GRACE}, for at most
 *       {@link #MAX_PARKED_MEMOS} keys.</li>
 * </ul>
 *
 * <h2>Why batches are large</h2>
 * Writers of a hot document usually run in a closed loop: a caller whose operation is done makes its next one at
 * once. Were the next batch taken the moment an attempt ends, it would hold only the callers that queued while the
 * attempt ran, and the writers would split into two cohorts taking turns, each write carrying about half of them.
 * So a leader about to take a batch waits, briefly, for the callers the last attempt ended to queue again
 * ({@link #linger}); and each caller waits parked on its own ({@link LockSupport}), so that a leader that ends a
 * batch wakes all its callers at once rather than one after another through the lane's lock.
 *
 * <h2>Non-blocking lanes</h2>
 * {@link #submitAsync} queues an operation without a waiting caller: its lane is led by the completions of its attempts
 * ({@link #drive}), its backoff waits on a timer, and what ends an attempt is the same as for the blocking lanes
 * ({@link #settle}). A leader does not linger there: the callers an attempt ended are completed before the next batch
 * is taken, so those that chain their next operation on it are in the queue already.
 *
 * <p>An operation submitted from inside an attempt (a function that itself updates a document through
 * the same {@link Occ}) would wait for a lane whose leader is waiting for it: {@link #insideAttempt()}
 * tells callers to run such an operation on their own, uncombined.
 *
 * @param <K> the key that names one document
 * @param <O> the operations
 */
final class WriteCombiner<K, O extends WriteCombiner.Op> {

    /** The most operations one attempt applies; the rest wait for the next attempt. Occ's Javadoc names it. */
    static final int DEFAULT_MAX_BATCH = 256;

    /**
     * How long the memo of a lane that closed is handed to the key's next lane. A hot key's lane closes whenever
     * an attempt took its whole queue, often to open again a few microseconds later; without the memo its next
     * attempt would read the document first (a realtime get of a document written since the last refresh makes
     * the shard refresh). A stale memo costs one conditional write that fails, and then the read.
     */
    static final Duration MEMO_GRACE = Duration.ofMillis(200);

    /** The most keys whose closed lane's memo is kept: it is the hottest keys that gain from it. */
    static final int MAX_PARKED_MEMOS = 64;

    /**
     * The longest a leader waits for the callers of the last attempt to queue again, as a share of that attempt's
     * time (see {@link #linger}): they come back within a fraction of a write, and callers that do not come back
     * cost no more than that.
     */
    static final double LINGER_SHARE = 0.5;

    /** The most takes that do not wait for callers after waits that ran out of time ({@link #linger}). */
    static final int MAX_LINGER_SKIPS = 63;

    /** The longest a leader waits for callers to queue again, however long the last attempt took. */
    static final Duration DEFAULT_MAX_LINGER = Duration.ofMillis(2);

    private static final ThreadLocal<Boolean> IN_ATTEMPT = new ThreadLocal<>();

    /** Runs attempts: what combining means for the operations is the runner's business. */
    @FunctionalInterface
    interface Runner<O> {
        /**
         * One attempt for a batch of operations on one key, in queue order. The runner calls
         * {@link Op#finish()} on every operation that has its result and leaves the others for another
         * attempt. Whatever it throws fails every operation of the batch not yet finished.
         *
         * @param batch one solo operation, or combinable operations in queue order
         * @param memo what the runner kept for this key after its last attempt, while the key stayed busy
         * @return how long to wait before another attempt, used only if some operation is left; for the blocking
         *     {@link #submit}, complete when returned (the runner sent its requests on the leader's thread); a failed
         *     future fails the batch's operations not yet finished, as a throw does
         */
        CompletableFuture<Duration> attempt(List<O> batch, Memo memo);
    }

    /**
     * What a runner keeps for a key from one attempt to the next (the document it last wrote, say), for as long as
     * the key is busy and for {@link #MEMO_GRACE} after its lane closes; only the leader, which runs one attempt at a
     * time, reads or writes it.
     */
    static final class Memo {
        private @Nullable Object value;

        /** The value kept, or {@code null}. */
        @SuppressWarnings("unchecked")
        <T> @Nullable T get() {
            return (T) value;
        }

        /** Keeps {@code value} ({@code null} forgets). */
        void set(@Nullable Object value) {
            this.value = value;
        }
    }

    /** One caller's operation; subclasses hold its input and result. */
    abstract static class Op {
        // The fields are the combiner's alone (package-private only because a type variable cannot reach
        // private members); subclasses use the methods.
        final boolean solo;
        // Written by the leader's thread before the lane lock is taken and read after it: the lock orders them.
        boolean finished;

        @Nullable
        Throwable crash;
        // Written under the lane's lock; lead and done are also read without it, by the waiting caller.
        @Nullable
        Thread caller;

        volatile boolean lead;
        /** Completed when the operation is done, for {@link #submitAsync}; null for a blocking caller. */
        @Nullable
        CompletableFuture<@Nullable Void> whenDone;

        boolean taken;
        volatile boolean done;
        boolean withdrawn;

        /** @param solo true for an operation that must run alone in its attempt */
        Op(boolean solo) {
            this.solo = solo;
        }

        /** Called by the runner when this operation has its result. */
        final void finish() {
            finished = true;
        }

        final boolean finished() {
            return finished;
        }

        /** What the runner threw, if the operation failed that way; else null. */
        final @Nullable Throwable crash() {
            return crash;
        }

        /** True when the caller's thread was interrupted while the operation waited its turn: it never ran. */
        final boolean withdrawn() {
            return withdrawn;
        }
    }

    private final Runner<O> runner;
    private final Sleeper sleeper;
    private final LongSupplier nanoClock;
    private final int maxBatch;
    private final long maxLinger;
    private final Map<K, Lane<O>> lanes = new ConcurrentHashMap<>();
    /** The memos of closed lanes, for the keys' next lanes (see {@link #MEMO_GRACE}). */
    private final Map<K, Parked> parked = new ConcurrentHashMap<>();

    /**
     * @param maxLinger the longest a leader waits for the callers of the last attempt to queue again ({@link #linger});
     *     zero never waits
     */
    WriteCombiner(Runner<O> runner, Sleeper sleeper, LongSupplier nanoClock, int maxBatch, Duration maxLinger) {
        this.runner = Objects.requireNonNull(runner);
        this.sleeper = Objects.requireNonNull(sleeper);
        this.nanoClock = Objects.requireNonNull(nanoClock);
        this.maxBatch = Checks.positive(maxBatch, "maxBatch");
        this.maxLinger = maxLinger.toNanos();
        if (this.maxLinger < 0) {
            throw new IllegalArgumentException("maxLinger must not be negative: " + maxLinger);
        }
    }

    /** True on a thread that is running an attempt (so a submit from there could wait for itself). */
    static boolean insideAttempt() {
        return IN_ATTEMPT.get() != null;
    }

    /**
     * Queues {@code op} behind the operations on the same key and returns when it is done: finished by an
     * attempt, failed by a runner's exception ({@link Op#crash()}), or withdrawn because the thread was
     * interrupted before it ran ({@link Op#withdrawn()}; the interrupt flag is then set again).
     */
    void submit(K key, O op) {
        Objects.requireNonNull(key);
        if (insideAttempt()) {
            throw new IllegalStateException("an operation submitted from inside an attempt would wait for itself");
        }
        Lane<O> lane = enqueue(key, op);
        boolean interrupted = false;
        // Each caller parks on its own: a leader that ends a batch wakes all its callers at once, and they leave
        // without queueing for the lane's lock one after another (they are back sooner for the next batch).
        while (!op.done) {
            if (op.lead) {
                lead(key, lane, op);
                continue;
            }
            LockSupport.park(this);
            if (Thread.interrupted()) {
                interrupted = true;
                lane.lock.lock();
                try {
                    // An operation in an attempt (taken) cannot be withdrawn: its write may land. Wait for, or take,
                    // its result.
                    if (!op.taken && !op.done) {
                        withdraw(key, lane, op);
                    }
                } finally {
                    lane.lock.unlock();
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Operations waiting or in an attempt for {@code key}; 0 when it has no lane. For tests. */
    int pending(K key) {
        Lane<O> lane = lanes.get(key);
        if (lane == null) {
            return 0;
        }
        lane.lock.lock();
        try {
            return lane.queue.size() + lane.inAttempt;
        } finally {
            lane.lock.unlock();
        }
    }

    /** True while the leader of {@code key}'s lane waits for callers to queue again ({@link #linger}). For tests. */
    boolean waitingForCallers(K key) {
        Lane<O> lane = lanes.get(key);
        if (lane == null) {
            return false;
        }
        lane.lock.lock();
        try {
            return lane.awaited > 0;
        } finally {
            lane.lock.unlock();
        }
    }

    /** Keys that have a lane now. For tests: an idle combiner has none. */
    int lanes() {
        return lanes.size();
    }

    private Lane<O> enqueue(K key, O op) {
        while (true) {
            Lane<O> lane = lanes.computeIfAbsent(key, this::newLane);
            lane.lock.lock();
            try {
                if (lane.closed) {
                    continue;
                }
                op.caller = op.whenDone == null ? Thread.currentThread() : null; // nobody parks for a future
                lane.queue.addLast(op);
                if (lane.awaited > 0 && lane.queue.size() >= lane.awaited) {
                    lane.arrived.signal();
                }
                if (!lane.led) {
                    lane.led = true;
                    op.lead = true;
                }
                return lane;
            } finally {
                lane.lock.unlock();
            }
        }
    }

    /** A lane for {@code key}, with the memo its last lane left if that closed less than the grace ago. */
    private Lane<O> newLane(K key) {
        Lane<O> lane = new Lane<>();
        Parked last = parked.remove(key);
        if (last != null && nanoClock.getAsLong() - last.since() <= MEMO_GRACE.toNanos()) {
            lane.memo.set(last.memo());
            lane.expected = last.expected();
            lane.lastAttemptNanos = last.attemptNanos();
        }
        return lane;
    }

    /**
     * Keeps the memo of a closing lane, with who is likely to come back and how long its last attempt took, for the
     * key's next lane, unless as many keys are kept already.
     */
    private void park(K key, Lane<O> lane) {
        long now = nanoClock.getAsLong();
        if (parked.size() >= MAX_PARKED_MEMOS) {
            parked.values().removeIf(p -> now - p.since() > MEMO_GRACE.toNanos());
            if (parked.size() >= MAX_PARKED_MEMOS) {
                return;
            }
        }
        parked.put(key, new Parked(lane.memo.get(), now, lane.expected, lane.lastAttemptNanos));
    }

    /** Runs attempts while {@code me} leads, until {@code me} is done; then hands the lane on. */
    private void lead(K key, Lane<O> lane, O me) {
        while (true) {
            long wait;
            lane.lock.lock();
            try {
                wait = lane.backoff ? lane.notBefore - nanoClock.getAsLong() : 0;
            } finally {
                lane.lock.unlock();
            }
            if (wait > 0) {
                try {
                    sleeper.sleep(Duration.ofNanos(wait));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            List<O> batch;
            lane.lock.lock();
            try {
                if (!lane.backoff) {
                    linger(lane);
                }
                if (Thread.currentThread().isInterrupted()) {
                    withdraw(key, lane, me); // the next leader waits out the rest of the backoff
                    return;
                }
                lane.backoff = false;
                batch = take(lane);
            } finally {
                lane.lock.unlock();
            }
            Duration retryAfter = Duration.ZERO;
            Throwable crash = null;
            IN_ATTEMPT.set(Boolean.TRUE);
            long started = nanoClock.getAsLong();
            try {
                retryAfter = Futures.await(runner.attempt(batch, lane.memo));
            } catch (Throwable t) {
                crash = t;
            } finally {
                IN_ATTEMPT.remove();
            }
            long took = nanoClock.getAsLong() - started;
            lane.lock.lock();
            try {
                for (O op : settle(lane, batch, took, retryAfter, crash)) {
                    LockSupport.unpark(op.caller);
                }
                if (me.done) {
                    me.lead = false;
                    handOff(key, lane);
                    return;
                }
            } finally {
                lane.lock.unlock();
            }
        }
    }

    /**
     * Queues {@code op} behind the operations on the same key without blocking: the returned future completes when the
     * operation is done (finished by an attempt, or failed by a runner's exception, {@link Op#crash()}). The lane's
     * attempts run one after another on the threads that complete them, and its backoff on a timer; nobody leads for
     * a caller, so a lane is led from its first operation until it is empty. A combiner serves either blocking or
     * non-blocking callers, never both.
     */
    CompletableFuture<@Nullable Void> submitAsync(K key, O op) {
        Objects.requireNonNull(key);
        op.whenDone = new CompletableFuture<>();
        Lane<O> lane = enqueue(key, op);
        if (op.lead) {
            op.lead = false; // the lane is led by its attempts' completions, not by this operation
            drive(key, lane);
        }
        return op.whenDone;
    }

    /**
     * Runs the attempts of a non-blocking lane until it is empty: a complete attempt is followed by the next on this
     * thread, an attempt in flight by the next on the thread that completes it. The operations an attempt ended are
     * completed before the next batch is taken, with the lane still led: a caller that queues its next operation as
     * soon as one is done (a closed loop) is queued again before that take, which is what a blocking leader lingers
     * for (see {@link #linger}).
     */
    private void drive(K key, Lane<O> lane) {
        while (true) {
            List<O> batch;
            lane.lock.lock();
            try {
                long wait = lane.backoff ? lane.notBefore - nanoClock.getAsLong() : 0;
                if (wait > 0) {
                    Futures.delay(Duration.ofNanos(wait)).thenRun(() -> drive(key, lane));
                    return;
                }
                lane.backoff = false;
                batch = take(lane);
            } finally {
                lane.lock.unlock();
            }
            long started = nanoClock.getAsLong();
            CompletableFuture<Duration> attempt;
            try {
                attempt = runner.attempt(batch, lane.memo);
            } catch (Throwable t) {
                attempt = CompletableFuture.failedFuture(t);
            }
            if (!attempt.isDone()) {
                attempt.whenComplete((retryAfter, failure) -> {
                    if (ended(key, lane, batch, started, retryAfter, failure)) {
                        drive(key, lane);
                    }
                });
                return;
            }
            Duration retryAfter = null;
            Throwable failure = null;
            try {
                retryAfter = attempt.join();
            } catch (Throwable t) {
                failure = t;
            }
            if (!ended(key, lane, batch, started, retryAfter, failure)) {
                return;
            }
        }
    }

    /**
     * The end of a non-blocking lane's attempt: settles it, completes the operations it ended, and closes the lane when
     * nothing is left.
     *
     * @return true when the lane has operations for another attempt
     */
    private boolean ended(
            K key,
            Lane<O> lane,
            List<O> batch,
            long started,
            @Nullable Duration retryAfter,
            @Nullable Throwable failure) {
        long took = nanoClock.getAsLong() - started;
        List<O> done;
        lane.lock.lock();
        try {
            done = settle(lane, batch, took, retryAfter, failure == null ? null : Futures.unwrap(failure));
        } finally {
            lane.lock.unlock();
        }
        for (O op : done) {
            Objects.requireNonNull(op.whenDone, "a non-blocking operation").complete(null);
        }
        lane.lock.lock();
        try {
            if (lane.queue.isEmpty()) {
                handOff(key, lane); // closes the lane
                return false;
            }
            return true;
        } finally {
            lane.lock.unlock();
        }
    }

    /**
     * What both forms do when an attempt is over, under the lock: the operations it finished (or that its exception
     * {@code crash} failed) are done; the others go back to the front of the queue in their order, and the lane backs
     * off for {@code retryAfter}.
     *
     * @return the operations now done, for their callers to be woken
     */
    private List<O> settle(
            Lane<O> lane, List<O> batch, long took, @Nullable Duration retryAfter, @Nullable Throwable crash) {
        lane.inAttempt = 0;
        lane.lastAttemptNanos = took;
        List<O> again = new ArrayList<>();
        List<O> done = new ArrayList<>(batch.size());
        for (O op : batch) {
            op.taken = false;
            if (!op.finished && crash != null) {
                op.crash = crash;
            }
            if (op.finished || op.crash != null) {
                op.done = true;
                done.add(op);
            } else {
                again.add(op);
            }
        }
        for (int i = again.size() - 1; i >= 0; i--) {
            lane.queue.addFirst(again.get(i));
        }
        lane.expected = batch.size() - again.size() + lane.queue.size();
        if (!again.isEmpty()) {
            lane.backoff = true;
            lane.notBefore = nanoClock.getAsLong() + (retryAfter == null ? 0 : retryAfter.toNanos());
        }
        return done;
    }

    /**
     * Waits, under the lock, for the callers the last attempt ended to queue again before taking a batch: writers in a
     * closed loop (a caller votes again as soon as its vote is done, the hot document's usual shape) would otherwise
     * split into two cohorts that take turns, the one the last attempt carried and the one that queued meanwhile, and
     * each write would carry half of them. The leader waits for the queue to hold as many operations as the last
     * attempt ended plus those that queued while it ran, for at most {@link #LINGER_SHARE} of the last attempt's time
     * and {@code maxLinger}. After a wait that runs out of time (callers that do not come back: they arrive at random,
     * or stopped), the next 1, 3, 7, ... up to {@value #MAX_LINGER_SKIPS} takes that would wait do not, until a wait
     * sees its callers back: a lane whose callers arrive at random soon waits on one take in 64 at most. The queue's
     * order, and the rule that a leader's own operation is in its batch, are unchanged: only when the batch is taken
     * moves.
     */
    private void linger(Lane<O> lane) {
        int target = Math.min(maxBatch, lane.expected);
        boolean worthIt = lane.queue.size() < target && lane.queue.peekFirst() != null && !lane.queue.peekFirst().solo;
        long left = Math.min((long) (lane.lastAttemptNanos * LINGER_SHARE), maxLinger);
        if (!worthIt || left <= 0) {
            return;
        }
        if (lane.lingerSkips > 0) {
            lane.lingerSkips--;
            return;
        }
        lane.awaited = target;
        try {
            while (lane.queue.size() < target && left > 0) {
                left = lane.arrived.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the leader withdraws its operation
        } finally {
            lane.awaited = 0;
        }
        if (lane.queue.size() >= target) {
            lane.lingerMisses = 0;
        } else {
            lane.lingerMisses++;
            lane.lingerSkips = skipsAfter(lane.lingerMisses);
        }
    }

    /** How many takes do not wait for callers after {@code misses} waits in a row that ran out: 1, 3, 7, ... 63. */
    static int skipsAfter(int misses) {
        return Math.min((1 << Math.min(misses, 30)) - 1, MAX_LINGER_SKIPS);
    }

    /** The head of the queue: one solo operation, or combinable ones up to the next solo one. Under the lock. */
    private List<O> take(Lane<O> lane) {
        List<O> batch = new ArrayList<>();
        O first = lane.queue.pollFirst();
        batch.add(first);
        if (!first.solo) {
            while (batch.size() < maxBatch && lane.queue.peekFirst() != null && !lane.queue.peekFirst().solo) {
                batch.add(lane.queue.pollFirst());
            }
        }
        for (O op : batch) {
            op.taken = true;
        }
        lane.inAttempt = batch.size();
        return batch;
    }

    /** Takes a queued operation out: it never runs. Under the lock. */
    private void withdraw(K key, Lane<O> lane, O op) {
        lane.queue.remove(op);
        op.withdrawn = true;
        op.done = true;
        if (op.lead) {
            op.lead = false;
            handOff(key, lane);
        }
    }

    /** Gives the lead to the head of the queue, or closes the lane when nobody waits. Under the lock. */
    private void handOff(K key, Lane<O> lane) {
        O next = lane.queue.peekFirst();
        if (next == null) {
            lane.led = false;
            lane.closed = true;
            if (lane.memo.get() != null) {
                park(key, lane); // before the lane leaves the map, so that the key's next lane finds it
            }
            lanes.remove(key, lane);
        } else {
            next.lead = true;
            LockSupport.unpark(next.caller);
        }
    }

    @Override
    public String toString() {
        return "WriteCombiner{lanes=" + lanes.size() + ", maxBatch=" + maxBatch + '}';
    }

    /** The memo of a closed lane and when it closed, on the combiner's clock. */
    private record Parked(@Nullable Object memo, long since, int expected, long attemptNanos) {}

    /** The queue of one key. */
    private static final class Lane<O extends Op> {
        final ReentrantLock lock = new ReentrantLock();
        final ArrayDeque<O> queue = new ArrayDeque<>();
        /** Some operation holds the lead. */
        boolean led;
        /** Removed from the map; a submitter must make a new lane. */
        boolean closed;
        /** Operations in the attempt in flight. */
        int inAttempt;
        /** The next attempt waits until {@link #notBefore}: the last one left operations to retry. */
        boolean backoff;
        /** The next attempt starts no earlier than this, on the combiner's clock. */
        long notBefore;
        /** The runner's, from one attempt to the next; read and written only by the leader, in its attempt. */
        final Memo memo = new Memo();
        /** Signalled when the queue reaches {@link #awaited}: the leader waits for it ({@link #linger}). */
        final Condition arrived = lock.newCondition();
        /** How many queued operations a lingering leader waits for; 0 when none lingers. */
        int awaited;
        /** The callers the last attempt ended plus those that queued meanwhile: who is likely to come back. */
        int expected;
        /** How long the last attempt took, on the combiner's clock; 0 before the first. */
        long lastAttemptNanos;
        /** Waits for callers that ran out of time in a row ({@link #linger}). */
        int lingerMisses;
        /** Takes that would wait for callers and do not, after waits that ran out of time. */
        int lingerSkips;
    }
}
