package io.github.esrel.denorm;

import io.github.esrel.retry.Failures;

/**
 * A propagation (or a stream of documents) failed as a whole: the cluster could not be reached or
 * refused a request other than with a 429 that outlasted the retry policy, the relation does not fit
 * the indices (a missing index, an unsearchable parent id field), or a job to resume does not exist
 * or is running elsewhere. The cause keeps the client's exception. Failures of single children are
 * <em>not</em> exceptions: they are reported per document ({@link ChildFailure}).
 */
public class PropagationException extends RuntimeException implements Failures.HasStatus {

    private static final long serialVersionUID = 1L;

    private final int status;

    public PropagationException(String message, int status, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** The HTTP status Elasticsearch answered with, or 0 when there was no answer. */
    @Override
    public int status() {
        return status;
    }
}
