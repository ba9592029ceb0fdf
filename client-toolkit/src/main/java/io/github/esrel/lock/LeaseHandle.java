package io.github.esrel.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What a handle on held locks does with their lease, the same for a {@link TreeLock} and for
 * {@link DocumentLocks}: report it, renew it, release it, and let a lost lease not go unnoticed on close.
 */
abstract class LeaseHandle implements AutoCloseable {

    final Lease lease;

    LeaseHandle(Lease lease) {
        this.lease = lease;
    }

    /** The exception {@link #close()} throws when the lease was lost before it. */
    abstract LeaseLostException lost(String reason);

    /**
     * The lease granted and renewed each time.
     *
     * @return the lease duration
     */
    public Duration ttl() {
        return lease.ttl();
    }

    /**
     * When the lease ends unless renewed, as stated at the last grant or renewal: by the server for plugin
     * locks, by this client's clock for lock documents.
     *
     * @return the end of the current lease
     */
    public Instant expiresAt() {
        return lease.expiresAt();
    }

    /**
     * True while the locks are neither closed nor lost and their lease has not run out by this client's clock.
     * Local and cheap: it asks nobody. A lease is measured from the moment its request was sent, so this turns
     * false no later than the server's lease ends (given clocks that run at the same rate).
     *
     * @return whether the locks are still held, as far as this client knows
     */
    public boolean isHeld() {
        return lease.isHeld();
    }

    /**
     * Renews the lease now, for the lease's {@link #ttl()} from now (background renewal does this by itself
     * unless disabled).
     *
     * @return true if renewed; false if the locks were closed or are lost (a loss is reported to the listeners
     *     first)
     * @throws TreeLockException if the cluster could not be asked, or no answer came to the renewal, sent again;
     *     the locks are still held until their lease ends
     */
    public boolean renew() {
        return lease.renew();
    }

    /**
     * Renews the lease now for {@code ttl} from now, and makes {@code ttl} the lease for later renewals (also the
     * background ones): a lock extended to a new end, or cut short to one (what a scheduler's "lock at least
     * until" needs). Plugin locks end by the server's clock, lock documents by this client's
     * ({@link #expiresAt()}).
     *
     * @param ttl the new lease, at least 1 ms
     * @return true if renewed; false if the locks were closed or are lost (a loss is reported to the listeners
     *     first)
     * @throws IllegalArgumentException if {@code ttl} is shorter than 1 ms
     * @throws TreeLockException if the cluster could not be asked; the locks are still held until their current
     *     lease ends
     */
    public boolean renew(Duration ttl) {
        if (ttl == null || ttl.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("a lease must be at least 1ms, got " + ttl);
        }
        return lease.renew(ttl);
    }

    /**
     * Releases the locks (a tree lock with its shared locks on the ancestors) and stops renewing them. A release
     * whose answer is lost is sent again; one found already done by its own earlier copy counts as done.
     *
     * @return true if the locks were held up to this release; false if they had been lost (their lease ran out
     *     or was taken over: the work they protected may have overlapped with another holder's) or were already
     *     released
     * @throws TreeLockException if the release request failed, or its outcome could not be learnt (no answer to it,
     *     sent again); renewal has stopped anyway and the locks end with their lease at the latest
     */
    public boolean release() {
        return lease.release();
    }

    /**
     * Releases the locks, like {@link #release()}, and makes sure a lost lease does not go unnoticed: if the
     * lease had been lost before this call (it ran out, or the server no longer held it), the release is still
     * done and then a {@link LeaseLostException} says so. After an explicit {@link #release()} it does nothing
     * (the caller has seen that result). Idempotent.
     *
     * @throws LeaseLostException if the lease was lost before this call (never because the answer to the release
     *     was lost)
     * @throws TreeLockException if the release request failed or its outcome could not be learnt (the locks end
     *     with their lease at the latest)
     */
    @Override
    public void close() {
        if (lease.state() == Lease.State.RELEASED) {
            return;
        }
        if (!release() && lease.lostBeforeRelease()) {
            throw lost(Objects.requireNonNull(lease.lostReason(), "a lease lost before its release says why"));
        }
    }
}
