package io.github.esrel.lock;

import io.github.esrel.EsrelException;

import java.util.List;

/**
 * A lock operation failed in a way the caller did not ask for: the cluster could not be reached or
 * refused the request, the plugin is required but not installed, the lock index cannot be created, or
 * the thread was interrupted while waiting. The cause keeps the client's exception (with the status
 * and Elasticsearch's error body).
 *
 * <p>A busy lock is <em>not</em> reported with this exception but as an {@link AcquireResult} carrying
 * the conflicts; {@link AcquireResult#orThrow()} turns that into this exception with status 409 and
 * the {@link #conflicts()}.
 */
public class TreeLockException extends EsrelException {

    private static final long serialVersionUID = 1L;

    private final transient List<LockConflict> conflicts;

    /**
     * Creates the exception, without conflicts.
     *
     * @param message the detail message
     * @param status the HTTP status Elasticsearch answered with, or 0 when there was no answer
     * @param cause the client's exception, or {@code null}
     */
    public TreeLockException(String message, int status, Throwable cause) {
        this(message, status, cause, List.of());
    }

    /**
     * Creates the exception.
     *
     * @param message the detail message
     * @param status the HTTP status Elasticsearch answered with (409 for a busy lock), or 0 when there
     *     was no answer
     * @param cause the client's exception, or {@code null}
     * @param conflicts the locks in the way; copied, must not be or contain {@code null}
     */
    public TreeLockException(String message, int status, Throwable cause, List<LockConflict> conflicts) {
        super(message, status, cause);
        this.conflicts = List.copyOf(conflicts);
    }

    /**
     * The locks in the way, for an exception made by {@link AcquireResult#orThrow()}; otherwise empty.
     *
     * @return the conflicts, unmodifiable; empty after deserialization, as they are not serialized
     */
    public List<LockConflict> conflicts() {
        return conflicts == null ? List.of() : conflicts;
    }
}
