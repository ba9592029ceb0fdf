package io.github.esrel.retry;

import io.github.esrel.EsrelException;

/**
 * {@link RetryPolicy#call} gave up: the last failure is the cause, and the exception says how many
 * attempts were made and why no further one was.
 */
public class RetryException extends EsrelException {

    private static final long serialVersionUID = 1L;

    /** Attempts made, the failed last one included. */
    private final int attempts;
    /** Why no further attempt was made. */
    private final StopReason reason;

    /**
     * Creates the exception.
     *
     * @param message the detail message
     * @param attempts the number of attempts made, the failed last one included
     * @param reason why no further attempt was made
     * @param cause the last failure; its status ({@link Failures#status}) is this exception's
     */
    public RetryException(String message, int attempts, StopReason reason, Throwable cause) {
        super(message, Failures.status(cause), cause);
        this.attempts = attempts;
        this.reason = reason;
    }

    /**
     * Attempts made, the failed last one included.
     *
     * @return the number of attempts
     */
    public int attempts() {
        return attempts;
    }

    /**
     * Why no further attempt was made.
     *
     * @return the stop reason
     */
    public StopReason reason() {
        return reason;
    }
}
