package io.github.esrel.lock;

import io.github.esrel.EsrelException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A lock operation failed in a way the caller did not ask for: the cluster could not be reached or
 * refused the request, the plugin is required but not installed, the lock index cannot be created, or
 * the thread was interrupted while waiting. The cause keeps the client's exception (with the status
 * and Elasticsearch's error body).
 *
 * <p>A busy lock is <em>not</em> reported with this exception but as an {@link AcquireResult} carrying
 * the conflicts; {@link AcquireResult#orThrow()} turns that into this exception with status 409 and
 * the {@link #conflicts()}.
 *
 * <p><b>One retryable outcome.</b> When the store of the locks is unavailable (the plugin's lock index
 * or the fallback's lock index has no active primary, its node cannot be reached, the cluster has no
 * master) and the server gave up, both providers throw this exception with {@link #status()} 503 and
 * {@link #retryable()} true, also for the 502 and 504 a node or proxy may answer instead; the message
 * says what the server met. Nothing is known to have changed: an acquire may or may not have been
 * granted (such a lock ends with its lease), a release may or may not have happened (the lock then ends with its
 * lease), a renewal is retried by the handle. Retry the same call after a pause. An acquisition whose answers were
 * lost (see {@link TreeLocks}, "Lost answers") ends with the same status when its wait is over, its message saying
 * that what it may have been granted was given back (or, if that failed too, that it ends with its lease). Every
 * other status is not retryable as such.
 */
public class TreeLockException extends EsrelException {

    private static final long serialVersionUID = 1L;

    /** The status of {@link #retryable()} failures: the lock store was unavailable. */
    public static final int UNAVAILABLE = 503;

    private final transient List<LockConflict> conflicts;

    /**
     * Creates the exception, without conflicts.
     *
     * @param message the detail message
     * @param status the HTTP status Elasticsearch answered with, or 0 when there was no answer
     * @param cause the client's exception, or {@code null}
     */
    public TreeLockException(String message, int status, @Nullable Throwable cause) {
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
    public TreeLockException(
            String message, int status, @Nullable Throwable cause, @Nullable List<LockConflict> conflicts) {
        super(message, status, cause);
        this.conflicts = List.copyOf(conflicts);
    }

    /**
     * Whether the failure is the lock store being unavailable (status {@value #UNAVAILABLE}): the same call may
     * succeed later.
     *
     * @return true for status {@value #UNAVAILABLE}
     */
    public boolean retryable() {
        return status() == UNAVAILABLE;
    }

    /**
     * The status a provider reports for an HTTP status Elasticsearch answered with: the gateway statuses 502
     * and 504 (a node that cannot be reached or did not answer in time) are the store being unavailable, so
     * they become {@value #UNAVAILABLE}, as the plugin's own give-up is; every other status stays.
     */
    static int providerStatus(int httpStatus) {
        return httpStatus == 502 || httpStatus == 504 ? UNAVAILABLE : httpStatus;
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
