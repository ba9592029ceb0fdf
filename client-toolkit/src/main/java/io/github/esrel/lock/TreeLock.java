package io.github.esrel.lock;

import io.github.esrel.internal.Listeners;
import io.github.esrel.path.TreePath;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A held tree lock: the grant of a {@link LockMode mode} on a path (and of shared locks on its
 * ancestors), leased for {@link #ttl()}, with a fencing {@link #token()}. Close it to release it.
 *
 * <pre>{@code
 * try (TreeLock lock = locks.acquire(LockRequest.exclusive("/clinton")).orThrow()) {
 *     for (Batch b : batches) {
 *         if (!lock.isHeld()) {
 *             throw new IllegalStateException("lost " + lock);   // stop: someone else may hold it now
 *         }
 *         write(b, lock.token());                               // e.g. version_type=external, version=token
 *     }
 * }
 * }</pre>
 *
 * <h2>Lease and renewal</h2>
 * Unless the request disabled it, the handle renews its lease in the background every third of the
 * lease, until it is closed: it stops renewing when closed, never later (a renewal in flight finishes
 * before the release is sent, none starts after). If renewals fail until the lease ends, or the
 * server says the lease is gone, the lock is <em>lost</em>: {@link #isHeld()} turns false and the
 * listeners hear {@link TreeLockListener#onLost}. A lease ends on the server even if its holder dies
 * or hangs; then the lock is free for others, so work protected by a lock must check {@link #isHeld()}
 * between steps and fence its writes with the token.
 *
 * <h2>Fencing token</h2>
 * {@link #token()} is strictly greater than every token issued before for this path in this namespace,
 * across expiry and restarts. Pass it to Elasticsearch as an external version
 * ({@code version_type=external}) on the documents the lock protects, and a holder whose lease
 * expired cannot overwrite what a later holder wrote. Both implementations issue
 * {@code max(last + 1, now × 1000)} (epoch milliseconds), so tokens also follow time across paths
 * (per namespace with the plugin, roughly with the fallback, whose clients' clocks may differ); only
 * the order per path is guaranteed.
 *
 * <p>Thread-safe. {@link #close()} is idempotent.
 */
public final class TreeLock implements AutoCloseable {

    private final String index;
    private final TreePath path;
    private final LockMode mode;
    private final String owner;
    private final long token;
    private final Lease lease;

    TreeLock(String index, TreePath path, LockMode mode, String owner, long token, Lease lease,
             List<TreeLockListener> listeners) {
        this.index = index;
        this.path = path;
        this.mode = mode;
        this.owner = owner;
        this.token = token;
        this.lease = lease;
        lease.start(new Lease.Events() {
            @Override
            public void renewed() {
                listeners.forEach(l -> call(() -> l.onRenewed(TreeLock.this)));
            }

            @Override
            public void renewalFailed(TreeLockException e) {
                listeners.forEach(l -> call(() -> l.onRenewalFailed(TreeLock.this, e)));
            }

            @Override
            public void lost(String reason) {
                listeners.forEach(l -> call(() -> l.onLost(TreeLock.this, reason)));
            }
        });
    }

    private static void call(Runnable r) {
        Listeners.safely(r, "TreeLockListener");
    }

    /**
     * The namespace: the target index the lock was taken for.
     *
     * @return the index name
     */
    public String index() {
        return index;
    }

    /**
     * The locked path; its ancestors hold shared locks of this grant.
     *
     * @return the path
     */
    public TreePath path() {
        return path;
    }

    /**
     * The mode granted on {@link #path()}.
     *
     * @return the mode
     */
    public LockMode mode() {
        return mode;
    }

    /**
     * Who holds the lock: the request's owner, or the provider's.
     *
     * @return the owner
     */
    public String owner() {
        return owner;
    }

    /**
     * The fencing token of this grant: strictly greater than every earlier token for this path.
     *
     * @return the token, to pass as an external version on the writes the lock protects
     */
    public long token() {
        return token;
    }

    /**
     * The lease granted and renewed each time.
     *
     * @return the lease duration
     */
    public Duration ttl() {
        return lease.ttl();
    }

    /**
     * When the lease ends unless renewed, as the server (or, for the fallback, this client's clock)
     * stated it at the last grant or renewal.
     *
     * @return the end of the current lease
     */
    public Instant expiresAt() {
        return lease.expiresAt();
    }

    /**
     * True while the lock is neither closed nor lost and its lease has not run out by this client's
     * clock. Local and cheap: it asks nobody. A lease is measured from the moment its request was
     * sent, so this turns false no later than the server's lease ends (given clocks that run at the
     * same rate).
     *
     * @return whether the lock is still held, as far as this client knows
     */
    public boolean isHeld() {
        return lease.isHeld();
    }

    /**
     * Renews the lease now, for the lease's {@link #ttl()} from now (background renewal does this by
     * itself unless disabled).
     *
     * @return true if renewed; false if the lock was closed or is lost (a loss is reported to the
     *     listeners first)
     * @throws TreeLockException if the cluster could not be asked; the lock is still held until its
     *     lease ends
     */
    public boolean renew() {
        return lease.renew();
    }

    /**
     * Releases the lock (and its shared locks on the ancestors) and stops renewing it.
     *
     * @return true if the lock was held up to this release; false if it had been lost (its lease ran
     *     out or was taken over: the work it protected may have overlapped with another holder's) or
     *     was already released
     * @throws TreeLockException if the release request failed; renewal has stopped anyway and the lock
     *     ends with its lease
     */
    public boolean release() {
        return lease.release();
    }

    /**
     * Releases the lock, like {@link #release()}, and makes sure a lost lease does not go unnoticed: if the
     * lease had been lost before this call (it ran out, or the server no longer held it), the release is still
     * done and then a {@link LeaseLostException} says so. After an explicit {@link #release()} it does nothing
     * (the caller has seen that result). Idempotent.
     *
     * <pre>{@code
     * try (TreeLock lock = locks.acquire(LockRequest.exclusive("/reports")).orThrow()) {
     *     write(report, lock.token());          // fenced: a later holder's writes win over a late one of ours
     * }                                         // throws LeaseLostException if the lease ran out meanwhile
     * }</pre>
     *
     * @throws LeaseLostException if the lease was lost before this call
     * @throws TreeLockException if the release request failed (the lock ends with its lease)
     */
    @Override
    public void close() {
        if (lease.state() == Lease.State.RELEASED) {
            return;
        }
        if (!release() && lease.lostBeforeRelease()) {
            throw new LeaseLostException(this, lease.lostReason());
        }
    }

    @Override
    public String toString() {
        Lease.State s = lease.state();
        String state = s == Lease.State.HELD ? (lease.isHeld() ? "held" : "expired") : s.name().toLowerCase(java.util.Locale.ROOT);
        return "TreeLock{" + index + " " + mode.jsonName() + " " + path + ", owner=" + owner + ", token=" + token
            + ", " + state + (s == Lease.State.HELD ? " until " + lease.expiresAt() : "") + '}';
    }
}
