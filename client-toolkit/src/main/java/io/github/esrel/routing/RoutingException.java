package io.github.esrel.routing;

import io.github.esrel.EsrelException;
import org.jspecify.annotations.Nullable;

/**
 * The routing parameters, a server-side calculation or a duplicate-id scan could not be obtained: the
 * index does not exist, routes on document fields, the cluster could not be reached, or refused the
 * request. The cause keeps the client's exception (with the HTTP status and Elasticsearch's error body).
 */
public class RoutingException extends EsrelException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the detail message
     * @param status the HTTP status Elasticsearch answered with, or 0 when there was no answer
     * @param cause the client's exception, or {@code null}
     */
    public RoutingException(@Nullable String message, int status, @Nullable Throwable cause) {
        super(message, status, cause);
    }
}
