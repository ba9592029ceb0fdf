package io.github.esrel.spring;

import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockConflict;
import io.github.esrel.lock.TreeLockException;
import java.util.List;
import org.springframework.dao.CannotAcquireLockException;

/**
 * A tree lock was still busy when its wait ran out and the caller asked for an exception
 * ({@link AcquireResult#orThrow()}): esrel's {@link TreeLockException} of status 409, kept as the cause, as Spring's
 * {@link CannotAcquireLockException}. {@link #conflicts()} names the locks that were in the way.
 */
public class EsrelCannotAcquireLockException extends CannotAcquireLockException {

    private static final long serialVersionUID = 1L;

    /** Not serialized: a conflict is not serializable. */
    private final transient List<LockConflict> conflicts;

    /**
     * Wraps esrel's exception.
     *
     * @param cause what esrel threw, not {@code null}; its message and conflicts are kept
     */
    public EsrelCannotAcquireLockException(TreeLockException cause) {
        super(cause.getMessage(), cause);
        this.conflicts = List.copyOf(cause.conflicts());
    }

    /**
     * The locks that conflicted with the request when its wait ran out.
     *
     * @return the conflicts, possibly empty; {@code null} after deserialization
     */
    public List<LockConflict> conflicts() {
        return conflicts;
    }
}
