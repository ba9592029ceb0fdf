package io.github.esrel.occ;

/**
 * Hears what optimistic operations go through, so an operator can see contention: every version
 * conflict as it happens and every finished operation with its {@link Outcome} (attempts, status).
 * {@link OccMetrics} is a ready-made one that keeps counts and an attempts histogram.
 *
 * <p>Every method is a no-op by default; override what you need. Methods are called synchronously,
 * often from many threads at once: implementations must be thread-safe and fast. {@link #onOutcome} is
 * called on the thread of the operation's caller (of {@code update}, {@code upsert}, … or of
 * {@link BulkUpdate#execute()}); {@link #onConflict} on the thread that made the write, which with write
 * combining (see {@link Occ}) may be another caller's, once for each call the conflicting write carried.
 * A listener that throws cannot break the operation: the exception is logged and ignored.
 */
public interface OccListener {

    /** A listener that does nothing. */
    OccListener NO_OP = new OccListener() {};

    /**
     * A conditional write or delete met a version conflict (409): another writer changed the document
     * since this operation read it. The operation re-reads and retries unless its policy is exhausted.
     *
     * @param index the index as the operation was given it (an alias is not resolved)
     * @param id the id of the document that conflicted
     * @param attempt the number of the attempt that conflicted, 1 for the first
     */
    default void onConflict(String index, String id, int attempt) {}

    /**
     * An operation (or one bulk item) finished; called once per operation, whatever its status.
     *
     * @param outcome what the operation did; the same object the operation returns
     */
    default void onOutcome(Outcome<?> outcome) {}
}
