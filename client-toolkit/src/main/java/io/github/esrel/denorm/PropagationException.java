package io.github.esrel.denorm;

import io.github.esrel.EsrelException;
import org.jspecify.annotations.Nullable;

/**
 * A propagation (or a stream of documents) failed as a whole: the cluster could not be reached or
 * refused a request other than with a 429 that outlasted the retry policy, the relation does not fit
 * the indices (a missing index, an unsearchable parent id field), or a job to resume does not exist
 * or is running elsewhere. The cause keeps the client's exception. Failures of single children are
 * <em>not</em> exceptions: they are reported per document ({@link ChildFailure}).
 */
public class PropagationException extends EsrelException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed, naming the index, job or document concerned
     * @param status the HTTP status Elasticsearch answered with (or that esrel assigns: 404 for an unknown
     *     job, 409 for a job running elsewhere), or 0 when there was no answer
     * @param cause the client's exception, or {@code null}
     */
    public PropagationException(@Nullable String message, int status, @Nullable Throwable cause) {
        super(message, status, cause);
    }
}
