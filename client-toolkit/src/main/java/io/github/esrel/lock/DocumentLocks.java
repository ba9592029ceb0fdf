package io.github.esrel.lock;

import java.util.List;

/**
 * Held document locks from {@link DocumentTreeLocks#lockDocuments}: exclusive locks on a set of
 * document ids, taken and released together, leased and renewed in the background like a
 * {@link TreeLock}. Close it to release them.
 *
 * <p>Thread-safe. {@link #close()} is idempotent.
 */
public final class DocumentLocks extends LeaseHandle {

    private final String index;
    private final List<String> ids;
    private final String owner;

    DocumentLocks(String index, List<String> ids, String owner, Lease lease) {
        super(lease);
        this.index = index;
        this.ids = List.copyOf(ids);
        this.owner = owner;
        lease.start(new Lease.Events() {
            @Override
            public void renewed() {}

            @Override
            public void renewalFailed(TreeLockException e) {
                org.slf4j.LoggerFactory.getLogger(DocumentLocks.class)
                        .warn("renewing {} failed; retrying", DocumentLocks.this, e);
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

    @Override
    LeaseLostException lost(String reason) {
        return new LeaseLostException(toString(), reason, null);
    }

    @Override
    public String toString() {
        return "DocumentLocks{" + index + " " + (ids.size() <= 5 ? ids.toString() : ids.size() + " ids") + ", owner="
                + owner + (isHeld() ? ", held until " + lease.expiresAt() : ", not held") + '}';
    }
}
