package io.github.esrel.lock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by {@link TreeLock#close()} (and {@link DocumentLocks#close()}) when the lock's lease had been lost before it was released: it ran out
 * (renewals failed for longer than the lease), or the server no longer held it (released or taken over after
 * expiry). The work done under the lock may have overlapped with another holder's; writes fenced with the
 * lock's {@link TreeLock#token() token} are the ones that could not have overwritten a later holder's.
 *
 * <p>It is never thrown for a release whose answer was lost: a release sent again (by the client or on its way)
 * that finds its own earlier release done counts as done, and one whose outcome cannot be learnt fails with a plain
 * {@link TreeLockException} instead (see {@link TreeLocks}, "Lost answers").
 *
 * <p>In try-with-resources a loss cannot go unnoticed: if the block itself threw, this exception is
 * suppressed into the block's exception; otherwise it is thrown from the block.
 */
public class LeaseLostException extends TreeLockException {

    private static final long serialVersionUID = 1L;

    /** The lock whose lease was lost; not serialized. */
    private final transient @Nullable TreeLock lock;

    /**
     * Creates the exception.
     *
     * @param lock the lock whose lease was lost
     * @param reason why it was lost, as the lock reported it
     */
    public LeaseLostException(TreeLock lock, String reason) {
        this(String.valueOf(lock), reason, lock);
    }

    /** For {@link DocumentLocks}, which share the lease and this contract. */
    LeaseLostException(String held, String reason, @Nullable TreeLock lock) {
        super(
                "the lease of " + held + " was lost before it was released: " + reason
                        + "; work done under it may have overlapped with another holder's",
                409,
                null);
        this.lock = lock;
    }

    /**
     * The tree lock whose lease was lost.
     *
     * @return the lock; {@code null} for {@link DocumentLocks}, and after deserialization
     */
    public @Nullable TreeLock lock() {
        return lock;
    }
}
