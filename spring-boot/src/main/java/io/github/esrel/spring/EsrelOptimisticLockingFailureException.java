package io.github.esrel.spring;

import io.github.esrel.occ.OccConflictException;
import io.github.esrel.occ.Outcome;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.OptimisticLockingFailureException;

/**
 * An optimistic update gave up: the document kept changing until the retry policy ran out (esrel's
 * {@link OccConflictException}, kept as the cause). Spring's {@link OptimisticLockingFailureException}, so that code
 * written for Spring Data's optimistic locking handles esrel's the same way; {@link #outcome()} says how far the call
 * got (attempts, conflicts, why it stopped).
 */
public class EsrelOptimisticLockingFailureException extends OptimisticLockingFailureException {

    private static final long serialVersionUID = 1L;

    /** Not serialized: an outcome may hold the caller's document, which need not be serializable. */
    private final transient Outcome<?> outcome;

    /**
     * Wraps esrel's exception.
     *
     * @param cause what esrel threw, not {@code null}; its message and outcome are kept
     */
    public EsrelOptimisticLockingFailureException(OccConflictException cause) {
        super(cause.getMessage(), cause);
        this.outcome = cause.outcome();
    }

    /**
     * The outcome of the call that gave up: status {@code CONFLICT}, its attempts, conflicts and stop reason.
     *
     * @return the outcome, or {@code null} after deserialization
     */
    public @Nullable Outcome<?> outcome() {
        return outcome;
    }
}
