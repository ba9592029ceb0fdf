package io.github.esrel.routing;

import io.github.esrel.retry.Failures;

/**
 * The routing parameters, a server-side calculation or a duplicate-id scan could not be obtained: the
 * index does not exist, routes on document fields, the cluster could not be reached, or refused the
 * request. The cause keeps the client's exception (with the HTTP status and Elasticsearch's error body).
 */
public class RoutingException extends RuntimeException implements Failures.HasStatus {

    private static final long serialVersionUID = 1L;

    /** The HTTP status, or 0 when there was no answer. */
    private final int status;

    /**
     * Creates the exception.
     *
     * @param message the detail message
     * @param status the HTTP status Elasticsearch answered with, or 0 when there was no answer
     * @param cause the client's exception, or {@code null}
     */
    public RoutingException(String message, int status, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /**
     * The HTTP status Elasticsearch answered with, or 0 when there was no answer.
     *
     * @return the HTTP status, or 0
     */
    @Override
    public int status() {
        return status;
    }
}
