package io.github.esrel;

import org.jspecify.annotations.Nullable;

/**
 * The base of every exception esrel throws for a failed operation: a propagation, a join, an optimistic
 * update, a view rebuild, a tree lock, a routing lookup, a file-tree change, a retried call. Catch it to
 * handle any of them; {@link #status()} says what Elasticsearch answered, so that a caller can tell a
 * missing index (404) from a refused privilege (403), a conflict (409) or a busy cluster (429, 503) without
 * knowing the capability. The cause keeps the client's exception with Elasticsearch's error body.
 *
 * <p>Outcomes that are expected are not exceptions: a busy lock, a version conflict a caller handles, a
 * child that could not be written are values ({@code AcquireResult}, {@code Outcome}, {@code ChildFailure}).
 */
public class EsrelException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The HTTP status, or 0 when there was no answer. */
    private final int status;

    /**
     * Creates the exception.
     *
     * @param message what failed, naming the index, document, job or path concerned
     * @param status the HTTP status Elasticsearch answered with (or that esrel assigns, as documented by each
     *     capability), or 0 when there was no answer
     * @param cause the client's exception, or {@code null}
     */
    public EsrelException(@Nullable String message, int status, @Nullable Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /**
     * The HTTP status Elasticsearch answered with, or that esrel assigns; 0 when there was no answer (an I/O
     * failure, an interrupt).
     *
     * @return the status, such as 404, 409 or 429, or 0
     */
    public int status() {
        return status;
    }
}
