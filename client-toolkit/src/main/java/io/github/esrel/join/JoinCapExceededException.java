package io.github.esrel.join;

/**
 * Thrown by {@link JoinResult#orThrow()} when a join stopped at its fan-out cap
 * ({@link Join.Builder#maxParents(int)}): the parent side matched, or had to be read, beyond what an
 * application-side join should ship to the other side. The message says how far the join got and
 * which parent fields to denormalize into the children so that one query answers instead.
 */
public class JoinCapExceededException extends JoinException {

    private static final long serialVersionUID = 1L;

    private final transient JoinResult<?, ?> result;

    /**
     * Creates the exception for a result that hit the cap; its message is the result's
     * {@link JoinResult#advice()} and its status 0.
     *
     * @param result the capped result, kept for {@link #result()}
     */
    public JoinCapExceededException(JoinResult<?, ?> result) {
        super(result.advice(), 0, null);
        this.result = result;
    }

    /**
     * Returns the result that hit the cap.
     *
     * @return the capped result (partial pairs, if any, and the figures); {@code null} after the
     *     exception was serialized, as the result is not serializable
     */
    public JoinResult<?, ?> result() {
        return result;
    }
}
