package io.github.esrel.plugin.lock.commit;

import io.github.esrel.plugin.lock.commit.VersionedStore.Failure;
import io.github.esrel.plugin.lock.commit.VersionedStore.Versioned;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.elasticsearch.action.ActionListener;
import org.jspecify.annotations.Nullable;

/**
 * Applies mutations to one state per key kept in a {@link VersionedStore}, many per write (group commit).
 *
 * <p>Mutations of a key queue on this node. One round at a time per key reads the state, applies every queued
 * mutation in order, each to the state the one before left, and writes the result once, conditional on the
 * version read. Contention between threads of this node therefore costs no conflicts; only another writer of
 * the store (another node) does, and a conflicting write is redone on a fresh read, every mutation of the
 * batch applied again, since each decision may depend on the state and on the mutations before it.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Every submitted mutation is completed exactly once: with the completion of its {@link Decision} once
 *       the state it decided on is stored (at once after the read when no mutation of the batch changed the
 *       state), or with {@link Mutation#fail}. So no waiter hears of a change that was not stored.</li>
 *   <li>Within a round, mutations are applied in the order they were submitted; rounds of a key never
 *       overlap. Each round takes at most {@value #MAX_BATCH} mutations.</li>
 *   <li>Conflicts are retried at once for the first three attempts, then after a few random milliseconds;
 *       {@link Failure#TRANSIENT transient} failures after an exponential backoff; both only until each
 *       mutation's deadline, past which it fails with {@link VersionedStore#gaveUp}, which hears how every
 *       attempt failed. {@link Failure#PERMANENT Permanent} failures fail the whole batch at once.</li>
 * </ul>
 * Nothing blocks a thread: the store is asynchronous, and rounds run on the {@link TaskScheduler}. The committer
 * knows nothing about what the state means.
 *
 * @param <S> the state kept per key, immutable
 */
public final class GroupCommitter<S> {

    private static final Logger logger = LogManager.getLogger(GroupCommitter.class);

    /** The most mutations applied in one round: bounds the work of a round and the waiters one write fails. */
    public static final int MAX_BATCH = 256;

    /**
     * One change to the state of a key, with whoever waits for it.
     *
     * @param <S> the state type
     */
    public interface Mutation<S> {
        /**
         * Decides on {@code state}, the state read with the changes of the mutations before this one in the
         * batch; called again on a fresh state after a conflict. A mutation that changes nothing must return
         * {@code state} itself. If it throws, only this mutation fails, with what it threw.
         *
         * @param state the state to decide on
         * @return the state after this mutation, and what to answer once it is stored
         */
        Decision<S> apply(S state);

        /**
         * Tells the waiter that the mutation failed.
         *
         * @param e why
         */
        void fail(Exception e);

        /**
         * A write that carried this mutation's change failed in a way that does not tell whether it was applied;
         * the mutation will be applied again, possibly to a state that already has its change.
         */
        default void writeOutcomeUnknown() {}

        /**
         * Asked before each attempt: a non-null answer fails the mutation with it instead of applying it.
         *
         * @return the failure of a mutation nobody waits for any more, or null to go on
         */
        default @Nullable Exception cancellation() {
            return null;
        }
    }

    /**
     * What a mutation decided: the state after it, and what to tell its waiter once that state is stored.
     *
     * @param state      the state after the mutation; the very state it was given if it changes nothing
     * @param completion answers the waiter; runs once the state is stored, not if the write fails
     * @param <S>        the state type
     */
    public record Decision<S>(S state, Runnable completion) {
        /**
         * Checks that both are present.
         *
         * @throws NullPointerException if {@code state} or {@code completion} is null
         */
        public Decision {
            Objects.requireNonNull(state, "state cannot be null");
            Objects.requireNonNull(completion, "completion cannot be null");
        }
    }

    /**
     * Told of every successful write, after its mutations are completed and before the next round starts.
     *
     * @param <S> the state type
     */
    public interface CommitListener<S> {
        /**
         * A round of {@code key} was stored.
         *
         * @param key    the key
         * @param before the state the round read
         * @param after  the state it stored
         */
        void committed(String key, S before, S after);
    }

    private final VersionedStore<S> store;
    private final TaskScheduler scheduler;
    private final CommitListener<S> commitListener;
    private final ConcurrentHashMap<String, KeyQueue<S>> queues = new ConcurrentHashMap<>();

    /**
     * Creates a committer; it holds no thread, and starts rounds as mutations come.
     *
     * @param store          where the states are kept
     * @param scheduler      where rounds run, and how retries wait
     * @param commitListener told of every stored round
     * @throws NullPointerException if an argument is null
     */
    public GroupCommitter(VersionedStore<S> store, TaskScheduler scheduler, CommitListener<S> commitListener) {
        this.store = Objects.requireNonNull(store, "store cannot be null");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler cannot be null");
        this.commitListener = Objects.requireNonNull(commitListener, "commitListener cannot be null");
    }

    /**
     * Queues {@code mutation} for the next round of {@code key}.
     *
     * @param key                the key whose state the mutation changes
     * @param mutation           the mutation; completed exactly once
     * @param retryDeadlineNanos until when ({@link TaskScheduler#nanoTime()}) failed attempts are retried
     * @throws NullPointerException if {@code mutation} is null
     */
    public void submit(String key, Mutation<S> mutation, long retryDeadlineNanos) {
        Pending<S> pending = new Pending<>(
                Objects.requireNonNull(mutation, "mutation cannot be null"), scheduler.nanoTime(), retryDeadlineNanos);
        while (true) {
            KeyQueue<S> queue = queues.computeIfAbsent(key, KeyQueue::new);
            boolean start;
            synchronized (queue) {
                if (queue.retired) {
                    continue; // it was just removed from the map: the next look finds or makes its successor
                }
                queue.pending.add(pending);
                start = queue.running == false;
                queue.running = true;
            }
            if (start) {
                scheduler.execute(() -> nextRound(queue));
            }
            return;
        }
    }

    /** A submitted mutation and what its failed attempts met; only its own rounds, which never overlap, touch it. */
    private static final class Pending<S> {
        final Mutation<S> mutation;
        final long submittedNanos;
        final long retryDeadlineNanos;
        int conflicts;
        int transientFailures;

        @Nullable
        Exception lastConflict;

        @Nullable
        Exception lastTransient;

        long slowestAttemptNanos;

        Pending(Mutation<S> mutation, long submittedNanos, long retryDeadlineNanos) {
            this.mutation = mutation;
            this.submittedNanos = submittedNanos;
            this.retryDeadlineNanos = retryDeadlineNanos;
        }

        void failed(Failure failure, Exception cause, long attemptNanos) {
            slowestAttemptNanos = Math.max(slowestAttemptNanos, attemptNanos);
            if (failure == Failure.CONFLICT) {
                conflicts++;
                lastConflict = cause;
            } else {
                transientFailures++;
                lastTransient = cause;
            }
        }

        VersionedStore.Retries retries(long nowNanos) {
            // Since submission, not since the first failure: a mutation may have queued behind a round that was
            // retrying for most of its time.
            return new VersionedStore.Retries(
                    conflicts,
                    transientFailures,
                    lastConflict,
                    lastTransient,
                    nowNanos - submittedNanos,
                    slowestAttemptNanos);
        }
    }

    /** The mutations of one key on this node. Guarded by itself. */
    private static final class KeyQueue<S> {
        final String key;
        final ArrayDeque<Pending<S>> pending = new ArrayDeque<>();
        boolean running;
        /** Removed from the map; a new instance takes its place. */
        boolean retired;

        KeyQueue(String key) {
            this.key = key;
        }
    }

    /** Takes the next batch of the queue, or ends its rounds when the queue is empty. */
    private void nextRound(KeyQueue<S> queue) {
        List<Pending<S>> batch = new ArrayList<>();
        synchronized (queue) {
            while (batch.size() < MAX_BATCH && queue.pending.isEmpty() == false) {
                batch.add(queue.pending.poll());
            }
            if (batch.isEmpty()) {
                queue.running = false;
                queue.retired = true;
                queues.remove(queue.key, queue);
                return;
            }
        }
        attempt(queue, batch, 0);
    }

    private void attempt(KeyQueue<S> queue, List<Pending<S>> candidates, int attempt) {
        List<Pending<S>> batch = new ArrayList<>(candidates.size());
        for (Pending<S> pending : candidates) {
            Exception cancelled = pending.mutation.cancellation();
            if (cancelled == null) {
                batch.add(pending);
            } else {
                fail(pending, cancelled);
            }
        }
        if (batch.isEmpty()) {
            scheduler.execute(() -> nextRound(queue));
            return;
        }
        long startedNanos = scheduler.nanoTime();
        ActionListener<Versioned<S>> onRead = new ActionListener<>() {
            @Override
            public void onResponse(Versioned<S> read) {
                decideAndWrite(queue, batch, attempt, read, startedNanos);
            }

            @Override
            public void onFailure(Exception e) {
                retryOrFail(queue, batch, attempt, e, startedNanos);
            }
        };
        try {
            store.read(queue.key, onRead);
        } catch (RuntimeException e) {
            onRead.onFailure(e);
        }
    }

    private void decideAndWrite(
            KeyQueue<S> queue, List<Pending<S>> batch, int attempt, Versioned<S> read, long startedNanos) {
        S state = read.state();
        List<Runnable> completions = new ArrayList<>(batch.size());
        List<Mutation<S>> changers = new ArrayList<>();
        for (Pending<S> pending : batch) {
            Decision<S> decision;
            try {
                decision = pending.mutation.apply(state);
            } catch (RuntimeException e) {
                decision = new Decision<>(state, () -> pending.mutation.fail(e));
            }
            if (decision.state() != state) {
                changers.add(pending.mutation);
            }
            state = decision.state();
            completions.add(decision.completion());
        }
        if (changers.isEmpty()) {
            // Nothing to store: every answer is about the state as read.
            finishRound(queue, completions, () -> {});
            return;
        }
        S after = state;
        ActionListener<Void> onWrite = new ActionListener<>() {
            @Override
            public void onResponse(Void ignored) {
                finishRound(queue, completions, () -> commitListener.committed(queue.key, read.state(), after));
            }

            @Override
            public void onFailure(Exception e) {
                // Even a conflict can follow an applied write (Elasticsearch retries a replicated write whose
                // primary failed), so no mutation that changed the state may assume its change is absent.
                changers.forEach(Mutation::writeOutcomeUnknown);
                retryOrFail(queue, batch, attempt, e, startedNanos);
            }
        };
        try {
            store.write(queue.key, read, after, onWrite);
        } catch (RuntimeException e) {
            onWrite.onFailure(e);
        }
    }

    private void finishRound(KeyQueue<S> queue, List<Runnable> completions, Runnable afterCompletions) {
        for (Runnable completion : completions) {
            runQuietly(completion, "completing a mutation");
        }
        runQuietly(afterCompletions, "reporting a write");
        nextRound(queue);
    }

    /** @param startedNanos when the failed attempt started ({@link TaskScheduler#nanoTime()}) */
    private void retryOrFail(KeyQueue<S> queue, List<Pending<S>> batch, int attempt, Exception e, long startedNanos) {
        Failure failure = store.classify(e);
        long attemptNanos = scheduler.nanoTime() - startedNanos;
        switch (failure) {
            case CONFLICT ->
                retryLater(queue, batch, attempt + 1, conflictBackoffMillis(attempt), e, failure, attemptNanos);
            case TRANSIENT ->
                retryLater(queue, batch, attempt + 1, transientBackoffMillis(attempt), e, failure, attemptNanos);
            case PERMANENT -> failBatch(queue, batch, e);
        }
    }

    /** Another writer got there first: at once, then spread a little so that two nodes stop colliding. */
    static long conflictBackoffMillis(int attempt) {
        return attempt < 3 ? 0 : ThreadLocalRandom.current().nextLong(1, Math.min(100, 5L << Math.min(attempt, 10)));
    }

    /** A missing primary or a lost node takes a while to heal: exponential up to 2 s, the lower half random. */
    static long transientBackoffMillis(int attempt) {
        long backoff = Math.min(2000, 50L << Math.min(attempt, 6));
        return ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1);
    }

    /**
     * Retries the batch after {@code delayMillis}, failing the mutations whose deadline has passed by then with
     * what the store makes of their retries (never with the last cause alone, which may tell only half the story).
     */
    private void retryLater(
            KeyQueue<S> queue,
            List<Pending<S>> batch,
            int attempt,
            long delayMillis,
            Exception cause,
            Failure failure,
            long attemptNanos) {
        long now = scheduler.nanoTime();
        long at = now + TimeUnit.MILLISECONDS.toNanos(delayMillis);
        List<Pending<S>> remaining = new ArrayList<>(batch.size());
        for (Pending<S> pending : batch) {
            pending.failed(failure, cause, attemptNanos);
            if (at - pending.retryDeadlineNanos > 0) {
                Exception gaveUp;
                try {
                    gaveUp = store.gaveUp(queue.key, pending.retries(now));
                } catch (RuntimeException e) {
                    e.addSuppressed(cause);
                    gaveUp = e;
                }
                fail(pending, gaveUp);
            } else {
                remaining.add(pending);
            }
        }
        if (remaining.isEmpty()) {
            scheduler.execute(() -> nextRound(queue));
        } else if (delayMillis == 0) {
            scheduler.execute(() -> attempt(queue, remaining, attempt));
        } else {
            try {
                scheduler.schedule(() -> attempt(queue, remaining, attempt), delayMillis);
            } catch (RuntimeException e) {
                failBatch(queue, remaining, e);
            }
        }
    }

    private void failBatch(KeyQueue<S> queue, List<Pending<S>> batch, Exception e) {
        batch.forEach(pending -> fail(pending, e));
        scheduler.execute(() -> nextRound(queue));
    }

    private static void fail(Pending<?> pending, Exception e) {
        runQuietly(() -> pending.mutation.fail(e), "failing a mutation");
    }

    /** A waiter that throws must not stop the round: the others still need their answers. */
    private static void runQuietly(Runnable action, String what) {
        try {
            action.run();
        } catch (RuntimeException e) {
            logger.warn(what + " failed", e);
        }
    }
}
