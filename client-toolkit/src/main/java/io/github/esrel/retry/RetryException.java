package io.github.esrel.retry;

/**
 * {@link RetryPolicy#call} gave up: the last failure is the cause, and the exception says how many
 * attempts were made and why no further one was.
 */
public class RetryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int attempts;
    private final StopReason reason;

    public RetryException(String message, int attempts, StopReason reason, Throwable cause) {
        super(message, cause);
        this.attempts = attempts;
        this.reason = reason;
    }

    /** Attempts made, the failed last one included. */
    public int attempts() {
        return attempts;
    }

    public StopReason reason() {
        return reason;
    }
}
