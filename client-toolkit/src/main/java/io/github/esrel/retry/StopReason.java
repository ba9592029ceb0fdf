package io.github.esrel.retry;

/** Why an operation stopped retrying. */
public enum StopReason {
    /** Still allowed to retry (or succeeded): no stop so far. */
    NONE,
    /** The failure does not match the policy's retry predicate. */
    NOT_RETRYABLE,
    /** The policy's maximum number of attempts was made. */
    MAX_ATTEMPTS,
    /** The next attempt could not start (after its backoff) before the policy's overall deadline. */
    DEADLINE,
    /** The thread was interrupted while waiting between attempts; its interrupt flag is set again. */
    INTERRUPTED
}
