package io.github.esrel.fs;

/**
 * The file tree could not be read or written: the cluster failed or refused a request. Expected
 * outcomes (a busy lock, a rename fenced off by a newer one) are {@link RenameResult}s, not this.
 */
public class FsException extends RuntimeException {

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
}
