package io.github.esrel.occ;

import io.github.esrel.EsrelException;
import org.jspecify.annotations.Nullable;

/**
 * An optimistic-concurrency operation failed in a way the caller did not ask for: the cluster could
 * not be reached or refused the request (a missing index, a bad mapping, a rejection that outlasted
 * the retry policy), a routed document was addressed without its routing, or a scripted update ran
 * on a cluster without scripting. The cause keeps the client's exception (with the status and
 * Elasticsearch's error body).
 *
 * <p>Running out of attempts against concurrent writers is <em>not</em> reported with this type but
 * as an {@link Outcome} with status {@link Outcome.Status#CONFLICT}; {@link Outcome#orThrow()} turns
 * that into an {@link OccConflictException}, a subclass.
 */
public class OccException extends EsrelException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed, naming the document and, where known, the fix
     * @param status the HTTP status Elasticsearch answered with, or 0 when there was no answer
     * @param cause the client's exception, or {@code null}
     */
    public OccException(@Nullable String message, int status, @Nullable Throwable cause) {
        super(message, status, cause);
    }
}
