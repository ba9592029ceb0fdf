package io.github.esrel.lock;

/**
 * Hears what happens to held locks after they were granted: renewals, failed renewals, and lost
 * leases. Set one per provider ({@link TreeLocks.Builder#listener}) and, optionally, one per request
 * ({@link LockRequest.Builder#listener}); both are called.
 *
 * <p>Every method is a no-op by default; override what you need. Methods are called on the thread
 * doing the work: the provider's renewal thread for background renewals, the caller's thread for
 * {@link TreeLock#renew()}. They are called while that lock's state is held, so that no event of a
 * lock arrives after its {@link TreeLock#close() close()} returned: implementations must be fast and
 * must not close or renew <em>other</em> locks (closing the lock given is fine). A listener that
 * throws cannot break renewal: the exception is logged and ignored.
 */
public interface TreeLockListener {

    /** A listener that does nothing. */
    TreeLockListener NO_OP = new TreeLockListener() {};

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
