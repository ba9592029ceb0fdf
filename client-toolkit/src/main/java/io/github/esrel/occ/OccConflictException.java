package io.github.esrel.occ;

/**
 * Thrown by {@link Outcome#orThrow()} for an operation that gave up on version conflicts: the
 * document kept changing until the retry policy ran out (or, for a single conditional write, it had
 * changed since it was read). Status 409; the outcome says how many attempts were made and why no
 * further one was.
 */
public class OccConflictException extends OccException {

    private static final long serialVersionUID = 1L;

    private final transient Outcome<?> outcome;

    /**
     * Creates the exception for an outcome that gave up; the message is {@link Outcome#describe()}.
     *
     * @param outcome the outcome, normally with status {@link Outcome.Status#CONFLICT}; not {@code null}
     * @throws NullPointerException if {@code outcome} is {@code null}
     */
    public OccConflictException(Outcome<?> outcome) {
        super(outcome.describe(), 409, null);
        this.outcome = outcome;
    }

    /**
     * The outcome that gave up.
     *
     * @return the outcome, with its attempts, conflicts and {@link Outcome#stopReason()}; {@code null}
     *     after the exception has been deserialized (the outcome is not serialized)
     */
    public Outcome<?> outcome() {
        return outcome;
    }
}
