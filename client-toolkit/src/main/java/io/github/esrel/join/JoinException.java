package io.github.esrel.join;

import io.github.esrel.EsrelException;
import org.jspecify.annotations.Nullable;

/**
 * A join or a grouping failed in a way the caller did not ask for: an index does not exist, a key
 * field is not mapped as a keyword or number with doc values, a source cannot be mapped to the
 * caller's type, or the cluster could not be reached or refused a request. The cause keeps the
 * client's exception (with the HTTP status and Elasticsearch's error body).
 *
 * <p>Hitting the fan-out cap is <em>not</em> reported with this type but as a {@link JoinResult}
 * whose status says so; {@link JoinResult#orThrow()} turns that into a
 * {@link JoinCapExceededException}, a subclass.
 */
public class JoinException extends EsrelException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed, for the caller
     * @param status the HTTP status Elasticsearch answered with, or 0 when there was no answer
     * @param cause the client's exception, or {@code null}
     */
    public JoinException(@Nullable String message, int status, @Nullable Throwable cause) {
        super(message, status, cause);
    }
}
