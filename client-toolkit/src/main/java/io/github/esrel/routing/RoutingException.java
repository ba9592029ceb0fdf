package io.github.esrel.routing;

/**
 * The routing parameters or a server-side calculation could not be obtained: the index does not
 * exist, routes on document fields, the cluster could not be reached, or refused the request. The
 * cause keeps the client's exception (with the HTTP status and Elasticsearch's error body).
 */
public class RoutingException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;

    public RoutingException(String message, int status, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** The HTTP status Elasticsearch answered with, or 0 when there was no answer. */
    public int status() {
        return status;
    }
}
