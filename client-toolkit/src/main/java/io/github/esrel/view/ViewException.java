package io.github.esrel.view;

import io.github.esrel.EsrelException;
import org.jspecify.annotations.Nullable;

/**
 * A materialized-view operation failed as a whole: the cluster could not be reached or refused a
 * request (other than a 429 that the retry policy absorbed), the state index is misconfigured, or a
 * source write made through {@link MaterializedView#changeSource} failed (the cause is the write's
 * exception). Failures of single views are not exceptions: they are reported per view
 * ({@link ViewFailure}) and the intent that covers them stays for {@link MaterializedView#repair()}.
 */
public class ViewException extends EsrelException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed, for the caller
     * @param status the HTTP status Elasticsearch answered with, or 0 when there was no answer
     * @param cause the client's or the source write's exception, or {@code null}
     */
    public ViewException(String message, int status, @Nullable Throwable cause) {
        super(message, status, cause);
    }
}
