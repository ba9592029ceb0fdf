package io.github.esrel.lock;

import io.github.esrel.internal.Listeners;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one grant on the client: held until released or lost, renewed in the background, and
 * never renewed once released.
 *
 * <p>Every renewal and the release run under {@link #io}. {@link #release()} first marks the lease
 * released under that lock, so a renewal that is in flight finishes before the release is sent, and
 * no renewal starts afterwards (it checks the state under the same lock). This is the guard against
 * the bug class where a watchdog renewal racing with unlock re-extends a lock after it was released.
 *
 * <p>Local expiry is measured on {@link System#nanoTime()} (or the clock a test gives) from the moment the
 * request that granted (or renewed) the lease was <em>sent</em>: the server's lease cannot have started earlier, so the
 * client never believes it holds a lease the server already let go (clock rates aside).
 */
final class Lease {

    private static final Logger log = LoggerFactory.getLogger(Lease.class);

    /** What a backend does for a lease. Both may throw {@link TreeLockException} on I/O failures. */
    interface Ops {
        /** Extends the lease to {@code ttl} from now; a lost lease is a value, not an exception. */
        Renewal renew(Duration ttl);

        /** Releases what is left of the grant; true if it was still held. */
        boolean release();
    }

    /** Events for the listeners of the handle; called under {@link #io}. */
    interface Events {
        void renewed();

        void renewalFailed(TreeLockException e);

        void lost(String reason);
    }

    /** Where background renewals are timed: a scheduled executor, or virtual time in tests. */
    interface Timer {
        /**
         * Runs {@code task} once after {@code delayNanos}.
         *
         * @return cancels the task unless it has started
         * @throws RejectedExecutionException if the timer is shut down
         */
        Future<?> schedule(Runnable task, long delayNanos);

        static Timer of(ScheduledExecutorService scheduler) {
            return (task, delayNanos) -> scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    record Renewal(
            boolean renewed,
            @Nullable Instant expiresAt,
            @Nullable String lostReason) {
        static Renewal ok(Instant expiresAt) {
            return new Renewal(true, expiresAt, null);
        }

        static Renewal lost(String reason) {
            return new Renewal(false, null, reason);
        }
    }

    enum State {
        HELD,
        LOST,
        RELEASED
    }

    private final ReentrantLock io = new ReentrantLock();
    private final Ops ops;
    private volatile Duration ttl;
    private final @Nullable Timer timer;
    private final LongSupplier nanoClock;
    private final Runnable onEnd;
    // Set by start(), which the lock calls before anything else (NullAway.Init: not in the constructor).
    @SuppressWarnings("NullAway.Init")
    private Events events;

    private volatile State state = State.HELD;
    private volatile long deadlineNanos;
    private volatile Instant expiresAt;
    private volatile @Nullable Future<?> next;
    private volatile @Nullable String lostReason;
    private volatile boolean lostBeforeRelease;
    private volatile @Nullable TreeLockException lastFailure;

    /**
     * @param sentNanos {@link System#nanoTime()} when the granting request was sent
     * @param scheduler where background renewals run, or {@code null} for none
     * @param onEnd called once when the lease is released or lost (to forget it)
     */
    Lease(
            Ops ops,
            Duration ttl,
            long sentNanos,
            Instant expiresAt,
            @Nullable ScheduledExecutorService scheduler,
            Runnable onEnd) {
        this(ops, ttl, sentNanos, expiresAt, scheduler == null ? null : Timer.of(scheduler), System::nanoTime, onEnd);
    }

    /**
     * A lease on the given timer and clock, so that a test can drive the renewals in virtual time.
     *
     * @param sentNanos {@code nanoClock}'s reading when the granting request was sent
     * @param timer where background renewals run, or {@code null} for none
     * @param nanoClock the monotonic clock local expiry is measured on
     */
    Lease(
            Ops ops,
            Duration ttl,
            long sentNanos,
            Instant expiresAt,
            @Nullable Timer timer,
            LongSupplier nanoClock,
            Runnable onEnd) {
        this.ops = ops;
        this.ttl = ttl;
        this.deadlineNanos = sentNanos + ttl.toNanos();
        this.expiresAt = expiresAt;
        this.timer = timer;
        this.nanoClock = nanoClock;
        this.onEnd = onEnd;
    }

    /** Sets the listeners' bridge and starts background renewal if there is a scheduler. */
    void start(Events events) {
        this.events = events;
        if (timer != null) {
            io.lock();
            try {
                schedule(renewInterval());
            } finally {
                io.unlock();
            }
        }
    }

    Duration ttl() {
        return ttl;
    }

    Instant expiresAt() {
        return expiresAt;
    }

    State state() {
        return state;
    }

    @Nullable
    String lostReason() {
        return lostReason;
    }

    boolean isHeld() {
        return state == State.HELD && nanoClock.getAsLong() - deadlineNanos < 0;
    }

    /**
     * Renews now (for {@link TreeLock#renew()}).
     *
     * @return true if renewed; false if released or lost (the loss is reported to the listeners)
     * @throws TreeLockException if the renewal failed without a verdict (I/O); the lease is still held
     *     until it expires
     */
    boolean renew() {
        return renew(null);
    }

    /**
     * Renews now for {@code newTtl} from now, which becomes the lease's duration for later renewals too (for
     * {@link LeaseHandle#renew(Duration)}: a lock extended, or cut short, to a new end).
     *
     * @param newTtl the new lease, or {@code null} to keep the current one
     * @return as {@link #renew()}
     */
    boolean renew(@Nullable Duration newTtl) {
        io.lock();
        try {
            return renewLocked(newTtl);
        } finally {
            io.unlock();
        }
    }

    private boolean renewLocked(@Nullable Duration newTtl) {
        if (state != State.HELD) {
            return false;
        }
        if (nanoClock.getAsLong() - deadlineNanos >= 0) {
            TreeLockException last = lastFailure;
            lostLocked("the lease expired at " + expiresAt + " before it was renewed"
                    + (last == null ? "" : ": renewals failed, last with " + last.getMessage()));
            return false;
        }
        Duration ttl = newTtl == null ? this.ttl : newTtl;
        long sent = nanoClock.getAsLong();
        Renewal r;
        try {
            r = ops.renew(ttl);
        } catch (TreeLockException e) {
            lastFailure = e;
            throw e;
        }
        lastFailure = null;
        if (!r.renewed()) {
            lostLocked(Objects.requireNonNull(r.lostReason(), "a lost renewal says why"));
            return false;
        }
        this.ttl = ttl;
        deadlineNanos = sent + ttl.toNanos();
        expiresAt = Objects.requireNonNull(r.expiresAt(), "a renewal says until when");
        fire(() -> events.renewed(), "onRenewed");
        if (timer != null) {
            schedule(renewInterval());
        }
        return true;
    }

    /** A background renewal: as {@link #renew()}, but failures are reported and retried, not thrown. */
    private void tick() {
        io.lock();
        try {
            if (state != State.HELD) {
                return;
            }
            try {
                renewLocked(null);
            } catch (TreeLockException e) {
                fire(() -> events.renewalFailed(e), "onRenewalFailed");
                long left = deadlineNanos - nanoClock.getAsLong();
                if (left <= 0) {
                    lostLocked("the lease expired at " + expiresAt
                            + " before it was renewed: renewals failed, last with " + e.getMessage());
                } else {
                    // Retry soon, and wake up at the deadline at the latest to report the loss on time.
                    schedule(Duration.ofNanos(Math.min(retryInterval().toNanos(), left)));
                }
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError vme) {
                    throw vme;
                }
                log.warn("renewal of a lease failed unexpectedly; retrying", e);
                schedule(retryInterval());
            }
        } finally {
            io.unlock();
        }
    }

    /**
     * Releases: after this returns (or throws), no renewal runs and no listener is called.
     *
     * @return true if the lease was held up to the release; false if it had been lost or released
     * @throws TreeLockException if the release request failed (the lease then ends by itself)
     */
    boolean release() {
        Future<?> f = next;
        if (f != null) {
            f.cancel(false);
        }
        io.lock();
        try {
            if (state == State.RELEASED) {
                return false;
            }
            boolean wasHeld = isHeld();
            boolean wasLost = state == State.LOST;
            state = State.RELEASED;
            cancelNext();
            if (wasLost) {
                lostBeforeRelease = true;
                return false;
            }
            onEnd.run();
            boolean releasedByServer = ops.release();
            // The server's answer decides: if it still had the grant, no conflicting grant was made meanwhile
            // (one would have removed it), even when this process's own, more cautious deadline had passed.
            if (!releasedByServer) {
                lostBeforeRelease = true;
                lostReason = wasHeld
                        ? "the server no longer held it when it was released (expired, or taken over after expiry)"
                        : "the lease expired at " + expiresAt
                                + " before it was renewed, and the server no longer held it";
            }
            return releasedByServer && wasHeld;
        } finally {
            io.unlock();
        }
    }

    /**
     * Whether the release found the lease already lost: lost while held, expired by the client's clock, or no
     * longer held by the server. Meaningful once {@link #release()} ran; {@link #lostReason()} says why.
     */
    boolean lostBeforeRelease() {
        return lostBeforeRelease;
    }

    private void lostLocked(String reason) {
        state = State.LOST;
        lostReason = reason;
        cancelNext();
        onEnd.run();
        fire(() -> events.lost(reason), "onLost");
        // Best effort: give back what may be left (the shared ancestor locks of a fallback grant).
        try {
            ops.release();
        } catch (RuntimeException e) {
            log.debug("cleanup after a lost lease failed; what is left expires with the lease", e);
        }
    }

    private void schedule(Duration delay) {
        cancelNext();
        try {
            // Renewals are scheduled only on a lease with a timer.
            next = Objects.requireNonNull(timer, "no timer").schedule(this::tick, Math.max(1, delay.toNanos()));
        } catch (RejectedExecutionException e) {
            // The provider is closing; it releases its open locks itself.
            log.debug("renewal not scheduled: the provider is closed");
        }
    }

    private void cancelNext() {
        Future<?> f = next;
        if (f != null) {
            f.cancel(false);
            next = null;
        }
    }

    /**
     * A third of the lease; or, when the grant (or renewal) answer was slow and less of the lease is left, half of
     * what is left, so that the renewal still comes before the end.
     */
    private Duration renewInterval() {
        long left = deadlineNanos - nanoClock.getAsLong();
        return Duration.ofNanos(Math.max(1, Math.min(ttl.toNanos() / 3, left / 2)));
    }

    private Duration retryInterval() {
        Duration d = ttl.dividedBy(10);
        return d.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10) : d;
    }

    private static void fire(Runnable call, String what) {
        Listeners.safely(call, "TreeLockListener." + what);
    }
}
