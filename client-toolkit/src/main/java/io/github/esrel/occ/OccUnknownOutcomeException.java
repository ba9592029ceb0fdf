package io.github.esrel.occ;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by {@link Outcome#orThrow()} for an operation whose write (or delete) was sent but whose fate is not known
 * ({@link Outcome.Status#UNKNOWN}): the connection failed or timed out before the answer, Elasticsearch answered with a
 * server error that does not say the write was refused, or it answered a version conflict while the document holds
 * exactly what the write would have stored (a write replayed after a failover conflicts with itself). The document
 * may or may not hold the change; esrel did not send it again, which could apply it twice. Read the document to
 * decide. The cause, when there is one, is the transport's or Elasticsearch's exception.
 */
public class OccUnknownOutcomeException extends OccException {

    private static final long serialVersionUID = 1L;

    private final transient Outcome<?> outcome;

    /**
     * Creates the exception for an outcome that is not known; the message is {@link Outcome#describe()}.
     *
     * @param outcome the outcome, normally with status {@link Outcome.Status#UNKNOWN}; not {@code null}
     * @param cause what made it unknown, or {@code null}
     * @throws NullPointerException if {@code outcome} is {@code null}
     */
    public OccUnknownOutcomeException(Outcome<?> outcome, @Nullable Throwable cause) {
        super(outcome.describe(), 0, cause);
        this.outcome = outcome;
    }

    /**
     * The outcome that is not known.
     *
     * @return the outcome, with its document, attempts and {@link Outcome#error()}; {@code null} after the exception
     *     has been deserialized (the outcome is not serialized)
     */
    public Outcome<?> outcome() {
        return outcome;
    }
}
