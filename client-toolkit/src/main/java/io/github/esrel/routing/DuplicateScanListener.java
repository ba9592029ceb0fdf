package io.github.esrel.routing;

/**
 * Follows a duplicate-id scan, like the client's {@code BulkIngester} listener: its plan, its progress for a
 * progress bar, and its end.
 *
 * <p>Every method is a no-op by default. Calls are never concurrent and come in order: {@code onStart}, then
 * {@code onProgress} through the phases, then {@code onFinish} once the point in time is closed and the spill
 * files deleted, or {@code onFailure} (also when the scan fails before it starts). Progress while reading may
 * come from the scan's slice threads; every other call comes from the thread that called
 * {@link DuplicateIdScanner#scan}. A listener that throws cannot break the scan: the exception is logged and
 * ignored. A slow listener slows the scan (and a listener that blocks for longer than the scanner's
 * {@code keepAlive} lets its point in time expire).
 */
public interface DuplicateScanListener {

    /** A listener that does nothing. */
    DuplicateScanListener NO_OP = new DuplicateScanListener() {};

    /**
     * The scan opened its point in time and knows its plan.
     *
     * @param index the index scanned
     * @param documents the snapshot's document count
     * @param partitions the spill partitions: 1 when every id fits in memory (nothing is written to disk)
     * @param slices the sliced searches that read the index in parallel
     */
    default void onStart(String index, long documents, int partitions, int slices) {}

    /**
     * After every page read, every partition counted and every batch of ids read back.
     *
     * @param progress the phase and how far it is
     */
    default void onProgress(ScanProgress progress) {}

    /**
     * The scan ended; the same report {@link DuplicateIdScanner#scan} returns.
     *
     * @param report what the scan found
     */
    default void onFinish(DuplicateIdReport report) {}

    /**
     * The scan failed; {@link DuplicateIdScanner#scan} then throws {@code failure}.
     *
     * @param index the index scanned
     * @param failure what stopped it: the {@link RoutingException} then thrown
     */
    default void onFailure(String index, RoutingException failure) {}
}
