package io.github.esrel.routing;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link DuplicateIdScanner} found in one index: every duplicated id up to the scanner's
 * {@code maxReported}, each with its copies, and the totals over the whole index.
 *
 * <p>The scan reads a point-in-time snapshot: documents written after it started are not seen. Every listed id
 * was read back in that snapshot with each of its copies. The totals {@link #duplicatedIds()} and
 * {@link #extraCopies()} are counted over every document, also past the report's cap; they are exact unless two
 * different ids share a 64-bit fingerprint, a chance below 10<sup>-7</sup> per million ids compared at once.
 *
 * @param index the index (or alias or pattern) scanned
 * @param documents documents read: the snapshot's document count
 * @param duplicatedIds ids that live more than once, in the whole index
 * @param extraCopies copies beyond the first, summed over the duplicated ids (the documents a clean-up deletes)
 * @param duplicates the duplicated ids read back with their copies, at most {@code maxReported}, ordered by
 *     index and id
 * @param truncated whether more ids are duplicated than {@link #duplicates()} lists
 * @param partitions the fingerprint tables counted: 1 when every id fitted in memory, else the spill partitions
 * @param spilledBytes bytes written to spill files (deleted when the scan ends); 0 when nothing was spilled
 * @param elapsed the wall time of the scan
 */
public record DuplicateIdReport(
        String index,
        long documents,
        long duplicatedIds,
        long extraCopies,
        List<DuplicateId> duplicates,
        boolean truncated,
        int partitions,
        long spilledBytes,
        Duration elapsed) {

    /**
     * Checks and copies the values.
     *
     * @param index the index scanned, not {@code null}
     * @param documents documents read
     * @param duplicatedIds ids that live more than once
     * @param extraCopies copies beyond the first
     * @param duplicates the reported ids, not {@code null}; copied
     * @param truncated whether more ids are duplicated than reported
     * @param partitions the fingerprint tables counted
     * @param spilledBytes bytes written to spill files
     * @param elapsed the wall time, not {@code null}
     * @throws NullPointerException if {@code index}, {@code duplicates} or {@code elapsed} is {@code null}
     */
    public DuplicateIdReport {
        Objects.requireNonNull(index, "index cannot be null");
        duplicates = List.copyOf(duplicates);
        Objects.requireNonNull(elapsed, "elapsed cannot be null");
    }

    /**
     * Whether no id lives more than once.
     *
     * @return {@code true} when {@link #duplicatedIds()} is 0
     */
    public boolean clean() {
        return duplicatedIds == 0;
    }

    /**
     * One line: the index, the documents read, the duplicated ids and how many are listed.
     *
     * @return the summary
     */
    @Override
    public String toString() {
        return "DuplicateIdReport{index=" + index + ", documents=" + documents + ", duplicatedIds=" + duplicatedIds
                + ", extraCopies=" + extraCopies + ", listed=" + duplicates.size() + (truncated ? " (truncated)" : "")
                + ", partitions=" + partitions + ", spilledBytes=" + spilledBytes + ", elapsed=" + elapsed + '}';
    }
}
