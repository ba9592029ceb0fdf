package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.commit.GroupCommitter;
import io.github.esrel.plugin.lock.commit.TaskScheduler;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.TreePath;
import io.github.esrel.plugin.lock.store.AcquireOutcome;
import io.github.esrel.plugin.lock.store.LockState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.elasticsearch.ElasticsearchStatusException;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.tasks.TaskCancelledException;
import org.jspecify.annotations.Nullable;

/**
 * Runs acquires: each is a mutation of its namespace's table, and one refused while its wait lasts holds
 * nothing: it sleeps here until the earliest conflicting lease ends, a backoff passes (at most
 * {@value #MAX_POLL_MILLIS} ms) or a release in its namespace on this node wakes it, and is then submitted
 * again. Cancelling its request wakes it at once, to fail.
 */
final class Acquirer {

    /**
     * The most conflicts a refused acquire reports: enough to say who is in the way, and a refusal of an exclusive
     * lock high in a tree of 100,000 grants does not answer (or walk) all of them.
     */
    static final int MAX_CONFLICTS = 100;

    /** The longest a waiting acquire sleeps before looking again (releases on other nodes are not signalled). */
    static final long MAX_POLL_MILLIS = 500;

    /** Hands an acquire to the group commit of its namespace. */
    interface Submitter {
        void submit(String namespace, GroupCommitter.Mutation<LockState> mutation, long retryDeadlineNanos);
    }

    private final TreeLockLimits limits;
    private final LongSupplier clock;
    private final TaskScheduler scheduler;
    private final Submitter submitter;
    /** The sleeping acquires of each namespace with their timers; a namespace without sleepers has no entry. */
    private final ConcurrentHashMap<String, Map<AcquireMutation, TaskScheduler.Cancellable>> sleeping =
            new ConcurrentHashMap<>();

    /** @param clock epoch milliseconds, the time leases are measured with */
    Acquirer(TreeLockLimits limits, LongSupplier clock, TaskScheduler scheduler, Submitter submitter) {
        this.limits = limits;
        this.clock = clock;
        this.scheduler = scheduler;
        this.submitter = submitter;
    }

    /** Starts an acquire; see {@link TreeLockService#acquire} for the answers. */
    void acquire(AcquireCommand command, Cancellation cancellation, ActionListener<Acquisition> listener) {
        long ttlMillis;
        long waitMillis;
        try {
            ttlMillis = limits.ttlMillis(command.ttl());
            waitMillis = limits.waitMillis(command.waitTime());
        } catch (IllegalArgumentException e) {
            listener.onFailure(e);
            return;
        }
        long waitDeadline = scheduler.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        AcquireMutation acquire = new AcquireMutation(command, ttlMillis, waitDeadline, cancellation, listener);
        // Wakes a sleeping acquire at once; a queued one sees the cancellation when its round starts.
        cancellation.onCancel(() -> wake(acquire));
        submit(acquire);
    }

    /** Wakes every sleeping acquire of the namespace: something was released or expired there. */
    void wakeAll(String namespace) {
        List<AcquireMutation> sleepers = new ArrayList<>();
        sleeping.computeIfPresent(namespace, (ns, timers) -> {
            sleepers.addAll(timers.keySet());
            return timers;
        });
        sleepers.forEach(this::wake);
    }

    private void submit(AcquireMutation acquire) {
        submitter.submit(acquire.command.namespace(), acquire, acquire.retryDeadlineNanos);
    }

    /** Answers a refused acquire whose wait is over, or puts it to sleep until it should look again. */
    private void answerOrSleep(AcquireMutation acquire, LockState.Acquired refused, long now) {
        long remainingNanos = acquire.waitDeadlineNanos - scheduler.nanoTime();
        if (acquire.cancellation.isCancelled()) {
            acquire.fail(clientWentAway());
        } else if (remainingNanos <= 0) {
            if (refused.outcome() == AcquireOutcome.FULL) {
                acquire.fail(tableFull(acquire.command.namespace()));
            } else {
                acquire.listener.onResponse(Acquisition.refused(refused.conflicts()));
            }
        } else {
            sleep(acquire, sleepMillis(acquire, refused.conflicts(), now, remainingNanos));
        }
    }

    /** Backs off from 10 ms to {@value #MAX_POLL_MILLIS} ms, but wakes right after the first conflicting lease ends. */
    private static long sleepMillis(AcquireMutation acquire, List<Grant> conflicts, long now, long remainingNanos) {
        long delay = Math.min(MAX_POLL_MILLIS, 10L << Math.min(acquire.sleeps++, 6));
        for (Grant g : conflicts) {
            delay = Math.min(delay, Math.max(1, g.expiresAtMillis() - now + 1));
        }
        return Math.max(1, Math.min(delay, TimeUnit.NANOSECONDS.toMillis(remainingNanos) + 1));
    }

    private void sleep(AcquireMutation acquire, long delayMillis) {
        String namespace = acquire.command.namespace();
        sleeping.compute(namespace, (ns, timers) -> {
            Map<AcquireMutation, TaskScheduler.Cancellable> next = timers == null ? new HashMap<>() : timers;
            next.put(acquire, () -> {}); // the timer follows; a wake before it leaves the timer to find nobody
            return next;
        });
        TaskScheduler.Cancellable timer;
        try {
            timer = scheduler.schedule(() -> wake(acquire), delayMillis);
        } catch (RuntimeException e) {
            if (remove(acquire) != null) {
                acquire.fail(e);
            }
            return;
        }
        sleeping.computeIfPresent(namespace, (ns, timers) -> {
            timers.replace(acquire, timer);
            return timers;
        });
    }

    /** Submits a sleeping acquire again; does nothing if it is not asleep. */
    private void wake(AcquireMutation acquire) {
        TaskScheduler.Cancellable timer = remove(acquire);
        if (timer != null) {
            timer.cancel();
            submit(acquire);
        }
    }

    /** Takes the acquire out of the sleepers, returning its timer, or null if it was not asleep. */
    private TaskScheduler.@Nullable Cancellable remove(AcquireMutation acquire) {
        List<TaskScheduler.Cancellable> removed = new ArrayList<>(1);
        sleeping.computeIfPresent(acquire.command.namespace(), (ns, timers) -> {
            TaskScheduler.Cancellable timer = timers.remove(acquire);
            if (timer != null) {
                removed.add(timer);
            }
            return timers.isEmpty() ? null : timers;
        });
        return removed.isEmpty() ? null : removed.get(0);
    }

    private static TaskCancelledException clientWentAway() {
        return new TaskCancelledException("the client went away");
    }

    /** An acquire whose grant id names another acquisition: a client that reuses ids, or a copy come too late. */
    private static IllegalArgumentException idReused(AcquireCommand command, @Nullable Grant other) {
        return new IllegalArgumentException("grant_id [" + command.grantId() + "] "
                + (other == null
                        ? "was released: a released grant id grants nothing more"
                        : "already identifies the " + other.mode().jsonName() + " lock on ["
                                + TreePath.shorten(other.path()) + "] of owner [" + TreePath.shorten(other.owner())
                                + "]")
                + "; send a new grant_id with each acquisition, and the same one only when sending the same acquire"
                + " again");
    }

    private static ElasticsearchStatusException tableFull(String namespace) {
        return new ElasticsearchStatusException(
                "the lock table of [" + namespace + "] is full: it holds the maximum number of live locks (setting ["
                        + TreeLockSettings.MAX_LOCKS_PER_INDEX.getKey() + "]); retry after some are released or expire",
                RestStatus.TOO_MANY_REQUESTS);
    }

    /** One acquire, from its request to its answer, through any number of sleeps. */
    private final class AcquireMutation implements GroupCommitter.Mutation<LockState> {
        final AcquireCommand command;
        final long ttlMillis;
        /**
         * Recognises this acquire's grant in the table after a write whose outcome was unknown, and, from its grant
         * id, the grant of the same acquire sent again by the client.
         */
        final long nonce;

        final long waitDeadlineNanos;
        /** Transient failures are retried for this long after the wait. */
        final long retryDeadlineNanos;

        final Cancellation cancellation;
        final ActionListener<Acquisition> listener;
        /** How often it has slept; only its own rounds, which never overlap, touch it. */
        int sleeps;

        AcquireMutation(
                AcquireCommand command,
                long ttlMillis,
                long waitDeadlineNanos,
                Cancellation cancellation,
                ActionListener<Acquisition> listener) {
            this.command = command;
            this.nonce = command.grantId() != null
                    ? GrantIds.nonce(command.grantId())
                    : ThreadLocalRandom.current().nextLong();
            this.ttlMillis = ttlMillis;
            this.waitDeadlineNanos = waitDeadlineNanos;
            this.retryDeadlineNanos = waitDeadlineNanos + limits.retryNanos();
            this.cancellation = cancellation;
            this.listener = listener;
        }

        @Override
        public GroupCommitter.Decision<LockState> apply(LockState table) {
            long now = clock.getAsLong();
            LockState.Acquired result = table.acquire(
                    command.path(),
                    command.mode(),
                    command.owner(),
                    command.bindTo(),
                    ttlMillis,
                    nonce,
                    now,
                    limits.maxLocks(),
                    MAX_CONFLICTS);
            if (result.outcome() == AcquireOutcome.GRANTED) {
                return new GroupCommitter.Decision<>(
                        result.state(), () -> listener.onResponse(Acquisition.granted(result.grant())));
            }
            if (result.outcome() == AcquireOutcome.ID_REUSED) {
                return new GroupCommitter.Decision<>(table, () -> fail(idReused(command, result.grant())));
            }
            return new GroupCommitter.Decision<>(table, () -> answerOrSleep(this, result, now));
        }

        @Override
        public void fail(Exception e) {
            listener.onFailure(e);
        }

        @Override
        public @Nullable Exception cancellation() {
            return cancellation.isCancelled() ? clientWentAway() : null;
        }
    }
}
