package io.github.esrel.fs;

import io.github.esrel.retry.Failures;

/**
 * The file tree could not be read or written: the cluster failed or refused a request. Expected
 * outcomes (a busy lock, a rename fenced off by a newer one) are {@link RenameResult}s, not this.
 */
public class FsException extends RuntimeException implements Failures.HasStatus {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the detail message
     * @param cause the client's exception, or {@code null}
     */
    public FsException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The HTTP status of the Elasticsearch answer behind the failure, from the cause (403 when the user lacks a
     * privilege, say).
     *
     * @return the status, or 0 when there was no answer (an I/O failure)
     */
    @Override
    public int status() {
        return Failures.status(getCause());
    }
}
