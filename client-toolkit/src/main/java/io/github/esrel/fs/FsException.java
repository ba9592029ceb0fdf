package io.github.esrel.fs;

import io.github.esrel.EsrelException;
import io.github.esrel.retry.Failures;
import org.jspecify.annotations.Nullable;

/**
 * The file tree could not be read or written: the cluster failed or refused a request. Expected
 * outcomes (a busy lock, a rename fenced off by a newer one) are {@link RenameResult}s, not this.
 */
public class FsException extends EsrelException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the detail message
     * @param cause the client's exception, or {@code null}; its status (403 when the user lacks a privilege, say) is
     *     this exception's
     */
    public FsException(String message, @Nullable Throwable cause) {
        super(message, Failures.status(cause), cause);
    }
}
