package io.github.esrel.occ;

import java.time.Duration;

/**
 * What one round of a {@link BulkUpdate} did. The items of one document share its read and its write, so
 * reads and writes are counted per document, outcomes per item.
 *
 * @param number 1 for the first round
 * @param items documents the round read
 * @param written documents updated or created
 * @param noops documents whose functions left them equal (nothing written)
 * @param notFound items whose document did not exist (plain updates)
 * @param conflicts conditional writes that met a version conflict (409)
 * @param rejected reads and writes rejected with 429
 * @param retried documents left pending for the next round
 * @param gaveUp items whose retry policy ran out this round
 * @param failed items that failed for good this round
 * @param took wall time of the round (reads, writes; not the backoff after it)
 */
public record BulkRound(
        int number,
        int items,
        int written,
        int noops,
        int notFound,
        int conflicts,
        int rejected,
        int retried,
        int gaveUp,
        int failed,
        Duration took) {}
