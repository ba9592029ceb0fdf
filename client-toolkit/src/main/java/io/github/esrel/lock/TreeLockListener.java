package io.github.esrel.lock;

import java.time.Duration;
import java.util.List;

/**
 * Hears what happens to tree locks: each acquisition (started, then granted, busy or failed), and after the
 * grant renewals, failed renewals, lost leases and the release. Set one per provider ({@link TreeLocks.Builder#listener}) and, optionally, one per request
 * ({@link LockRequest.Builder#listener}); both are called.
 *
 * <p>Every method is a no-op by default; override what you need. Methods are called on the thread
 * doing the work: the provider's renewal thread for background renewals, the caller's thread for
 * {@link TreeLock#renew()}. They are called while that lock's state is held, so that no event of a
 * lock arrives after its {@link TreeLock#close() close()} returned: implementations must be fast and
 * must not close or renew <em>other</em> locks (closing the lock given is fine). A listener that
 * throws cannot break renewal: the exception is logged and ignored.
 *
 * <p>The acquisition events are called on the caller's thread of {@link TreeLocks#acquire}: first
 * {@link #onAcquireStarted}, then exactly one of {@link #onGranted}, {@link #onBusy} or {@link #onAcquireFailed}
 * (the span of one acquisition, its wait included). {@link #onReleased} is called on the thread that releases. A
 * listener that throws cannot break the acquisition either. Document locks ({@code DocumentTreeLocks.lockDocuments})
 * report no events.
 *
 * <p>Fenced writes: the server refuses a write fenced with a stale token ({@code FileTree}'s writes and renames),
 * which the writer sees as the write's own failure; no event of this listener reports it.
 */
public interface TreeLockListener {

    /** A listener that does nothing. */
    TreeLockListener NO_OP = new TreeLockListener() {};

    /**
     * An acquisition starts, on the caller's thread; its end is one of {@link #onGranted}, {@link #onBusy} or
     * {@link #onAcquireFailed}, on the same thread.
     *
     * @param index the namespace (the target index) of the provider
     * @param request what is asked for
     */
    default void onAcquireStarted(String index, LockRequest request) {}

    /**
     * The lock was granted.
     *
     * @param lock the held lock
     * @param waited from {@link #onAcquireStarted} to the grant: every attempt and the waits between them
     */
    default void onGranted(TreeLock lock, Duration waited) {}

    /**
     * Other locks were still in the way when the request's wait ran out (immediately, for a request that does not
     * wait): the acquisition returns a busy {@link AcquireResult}.
     *
     * @param index the namespace (the target index) of the provider
     * @param request what was asked for
     * @param conflicts the locks in the way, as {@link AcquireResult#conflicts()}
     * @param waited from {@link #onAcquireStarted} to giving up
     */
    default void onBusy(String index, LockRequest request, List<LockConflict> conflicts, Duration waited) {}

    /**
     * The acquisition throws instead of returning a result: the cluster refused the request (a {@link
     * TreeLockException}: not authorized, no such namespace, a bad request) or could not be reached, the thread was
     * interrupted while waiting, or the provider was closed.
     *
     * @param index the namespace (the target index) of the provider
     * @param request what was asked for
     * @param failure what the acquisition throws
     * @param waited from {@link #onAcquireStarted} to the failure
     */
    default void onAcquireFailed(String index, LockRequest request, RuntimeException failure, Duration waited) {}

    /**
     * The lock was released ({@link TreeLock#release()} or {@link TreeLock#close()}, the first of them), after the
     * release request; also when the release request failed (then {@code held} is false and the lock ends with its
     * lease).
     *
     * @param lock the released lock
     * @param held true if the lease was held up to the release; false if it had been lost, or the release failed
     */
    default void onReleased(TreeLock lock, boolean held) {}

    /**
     * The lease of {@code lock} was extended; {@link TreeLock#expiresAt()} has the new end.
     *
     * @param lock the renewed lock
     */
    default void onRenewed(TreeLock lock) {}

    /**
     * A renewal failed without an answer that settles it (the cluster could not be reached, or refused
     * with an unexpected error). The lock is still held until its lease ends; renewal is retried
     * before that. If no retry succeeds in time, {@link #onLost} follows.
     *
     * @param lock the lock whose renewal failed
     * @param failure why the renewal failed
     */
    default void onRenewalFailed(TreeLock lock, TreeLockException failure) {}

    /**
     * The lease of {@code lock} is gone: it expired before a renewal succeeded, or the server says it
     * is no longer held (expired, or now held by another grant). From now on {@link TreeLock#isHeld()}
     * is false and the work it protected must stop; writes fenced with its token are refused once a
     * later holder has written. Called at most once per lock, never after the lock was closed.
     *
     * @param lock the lost lock
     * @param reason what happened, for logs
     */
    default void onLost(TreeLock lock, String reason) {}
}
