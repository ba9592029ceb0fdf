package io.github.esrel.occ;

/**
 * Thrown by {@link BulkUpdate#execute()} when not every item was done: some gave up on version conflicts
 * (the documents kept changing until the retry policy ran out) or failed. The whole outcome comes with it,
 * so that the caller knows which items were written and which were not. Status 409 when only conflicts
 * stopped items, else the status of the first failure (0 when it had none).
 */
public class OccBulkException extends OccException {

    private static final long serialVersionUID = 1L;

    /** The outcome of every item; not serialized. */
    private final transient BulkOutcome<?> outcome;

    /**
     * Creates the exception.
     *
     * @param outcome the outcome of the bulk update, not complete
     */
    public OccBulkException(BulkOutcome<?> outcome) {
        super(message(outcome), status(outcome), null);
        this.outcome = outcome;
    }

    /**
     * The outcome of every item.
     *
     * @return the bulk outcome; {@code null} after deserialization
     */
    public BulkOutcome<?> outcome() {
        return outcome;
    }

    private static String message(BulkOutcome<?> outcome) {
        long gaveUp = outcome.count(Outcome.Status.CONFLICT);
        long failed = outcome.count(Outcome.Status.FAILED);
        long unknown = outcome.count(Outcome.Status.UNKNOWN);
        String first = outcome.items().stream()
                .filter(o -> o.status() == Outcome.Status.CONFLICT
                        || o.status() == Outcome.Status.FAILED
                        || o.status() == Outcome.Status.UNKNOWN)
                .findFirst()
                .map(Outcome::describe)
                .orElse("");
        return "bulk update not complete: " + gaveUp + " of " + outcome.items().size() + " items gave up on conflicts, "
                + failed + " failed" + (unknown > 0 ? ", " + unknown + " have an unknown outcome" : "") + "; first: "
                + first;
    }

    private static int status(BulkOutcome<?> outcome) {
        return outcome.count(Outcome.Status.FAILED) == 0 && outcome.count(Outcome.Status.UNKNOWN) == 0 ? 409 : 0;
    }
}
