package io.github.esrel.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Held document locks from {@link DocumentTreeLocks#lockDocuments}: exclusive locks on a set of
 * document ids, taken and released together, leased and renewed in the background like a
 * {@link TreeLock}. Close it to release them.
 *
 * <p>Thread-safe. {@link #close()} is idempotent.
 */
public final class DocumentLocks implements AutoCloseable {

    private final String index;
    private final List<String> ids;
    private final String owner;
    private final Lease lease;

    DocumentLocks(String index, List<String> ids, String owner, Lease lease) {
        this.index = index;
        this.ids = List.copyOf(ids);
        this.owner = owner;
        this.lease = lease;
        lease.start(new Lease.Events() {
            @Override
            public void renewed() {}

            @Override
            public void renewalFailed(TreeLockException e) {
                org.slf4j.LoggerFactory.getLogger(DocumentLocks.class).warn("renewing {} failed; retrying", DocumentLocks.this, e);
            }

            @Override
            public void lost(String reason) {
                org.slf4j.LoggerFactory.getLogger(DocumentLocks.class).warn("lost {}: {}", DocumentLocks.this, reason);
            }
        });
    }

    /**
     * The namespace (the index the documents are in).
     *
     * @return the index name
     */
    public String index() {
        return index;
    }

    /**
     * The locked document ids, without duplicates, in the order given.
     *
     * @return the ids, unmodifiable
     */
    public List<String> ids() {
        return ids;
    }

    /**
     * Who holds the locks: the provider's owner.
     *
     * @return the owner
     */
    public String owner() {
        return owner;
    }

    /**
     * The lease granted and renewed each time: the provider's.
     *
     * @return the lease duration
     */
    public Duration ttl() {
        return lease.ttl();
    }

    /**
     * When the lease ends unless renewed, by this client's clock.
     *
     * @return the end of the current lease
     */
    public Instant expiresAt() {
        return lease.expiresAt();
    }

    /**
     * True while neither closed nor lost and the lease has not run out by this client's clock.
     *
     * @return whether the locks are still held, as far as this client knows
     */
    public boolean isHeld() {
        return lease.isHeld();
    }

    /**
     * Renews the lease of every document now.
     *
     * @return true if renewed; false if released or lost
     * @throws TreeLockException if the cluster could not be asked
     */
    public boolean renew() {
        return lease.renew();
    }

    /**
     * Releases every document lock of this set (the owner's own, with conditional writes) and stops
     * renewing.
     *
     * @return true if all were held up to this release
     * @throws TreeLockException if the release failed; the locks end with their lease
     */
    public boolean release() {
        return lease.release();
    }

    /**
     * Releases the locks, like {@link #release()}; if the lease had been lost before this call, the release is
     * still done and then a {@link LeaseLostException} says so (as {@link TreeLock#close()} does). Quiet after an
     * explicit {@link #release()}. Idempotent.
     *
     * @throws LeaseLostException if the lease was lost before this call
     * @throws TreeLockException if the release failed; the locks end with their lease
     */
    @Override
    public void close() {
        if (lease.state() == Lease.State.RELEASED) {
            return;
        }
        if (!release() && lease.lostBeforeRelease()) {
            throw new LeaseLostException(toString(), lease.lostReason(), null);
        }
    }

    @Override
    public String toString() {
        return "DocumentLocks{" + index + " " + (ids.size() <= 5 ? ids.toString() : ids.size() + " ids") + ", owner=" + owner
            + (isHeld() ? ", held until " + lease.expiresAt() : ", not held") + '}';
    }
}
