package io.github.esrel.occ;

/**
 * Follows a {@link BulkUpdate} round by round, like the client's {@code BulkIngester} listener. A round
 * reads the pending documents ({@code _mget}), applies the functions and writes the changed ones in
 * conditional {@code _bulk} requests; items that conflict stay pending for the next round.
 *
 * <p>Every method is a no-op by default. Methods are called synchronously on the thread that called
 * {@link BulkUpdate#execute()}, in order. A listener that throws cannot break the job: the exception
 * is logged and ignored. Per-document events (conflicts, outcomes) go to the {@link OccListener} of the
 * {@link Occ} as well.
 */
public interface BulkUpdateListener {

    /** A listener that does nothing. */
    BulkUpdateListener NO_OP = new BulkUpdateListener() {};

    /**
     * A round starts.
     *
     * @param round 1 for the first
     * @param items documents this round reads and, if changed, writes
     */
    default void beforeRound(int round, int items) {}

    /**
     * A round finished; the counts say what happened to its items.
     *
     * @param round what the round did: its number, counts per result and duration
     */
    default void afterRound(BulkRound round) {}

    /**
     * A whole request of the round failed (the cluster could not be reached, or refused the request as
     * a whole with something other than 429). {@link BulkUpdate#execute()} then throws an
     * {@link OccException} with the same cause.
     *
     * @param round the number of the round the request belonged to, 1 for the first
     * @param failure the failure of the request, as the client threw it
     */
    default void onFailure(int round, Throwable failure) {}
}
