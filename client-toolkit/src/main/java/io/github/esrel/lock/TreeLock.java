package io.github.esrel.lock;

import io.github.esrel.internal.Listeners;
import io.github.esrel.path.TreePath;
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
public final class TreeLock extends LeaseHandle {

    private final String index;
    private final TreePath path;
    private final LockMode mode;
    private final String owner;
    private final long token;
    private final List<TreeLockListener> listeners;

    TreeLock(
            String index,
            TreePath path,
            LockMode mode,
            String owner,
            long token,
            Lease lease,
            List<TreeLockListener> listeners) {
        super(lease);
        this.index = index;
        this.path = path;
        this.mode = mode;
        this.owner = owner;
        this.token = token;
        this.listeners = listeners;
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
     * {@inheritDoc}
     *
     * <p>The first release of this lock (by this method or {@link #close()}) is reported to the listeners'
     * {@link TreeLockListener#onReleased}, after the release request.
     */
    @Override
    public boolean release() {
        if (listeners.isEmpty() || lease.state() == Lease.State.RELEASED) {
            return super.release();
        }
        boolean held = false;
        try {
            held = super.release();
            return held;
        } finally {
            boolean wasHeld = held;
            listeners.forEach(l -> call(() -> l.onReleased(this, wasHeld)));
        }
    }

    @Override
    LeaseLostException lost(String reason) {
        return new LeaseLostException(this, reason);
    }

    @Override
    public String toString() {
        Lease.State s = lease.state();
        String state = s == Lease.State.HELD
                ? (lease.isHeld() ? "held" : "expired")
                : s.name().toLowerCase(java.util.Locale.ROOT);
        return "TreeLock{" + index + " " + mode.jsonName() + " " + path + ", owner=" + owner + ", token=" + token + ", "
                + state + (s == Lease.State.HELD ? " until " + lease.expiresAt() : "") + '}';
    }
}
