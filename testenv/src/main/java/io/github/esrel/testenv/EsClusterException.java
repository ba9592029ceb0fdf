package io.github.esrel.testenv;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * A test cluster could not be prepared, started or controlled. The message says which node and why,
 * and for a local node that failed to start it carries the tail of that node's log.
 */
public final class EsClusterException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a message that names the value at fault and the fix.
     *
     * @param message what failed, on which node, and why
     */
    public EsClusterException(String message) {
        super(message);
    }

    /**
     * Creates an exception with a message and the failure that caused it.
     *
     * @param message what failed, on which node, and why
     * @param cause the underlying failure, or {@code null} if none
     */
    public EsClusterException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
