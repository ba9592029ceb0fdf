package io.github.esrel.occ;

import java.time.Duration;

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
 *
 * <p>Every single-document operation ({@code update}, {@code upsert}, {@code deleteIf}, {@code replace},
 * {@code deleteIfUnchanged}, {@code scriptedUpdate} and their {@code try} variants) calls {@link #onStart} on the
 * caller's thread before its first request, then, on the same thread, exactly one of {@link #onOutcome} (it has an
 * outcome, even one its caller then turns into an exception) or {@link #onFailure} (it throws instead). Operations
 * nest (a function that itself updates a document through the same {@link Occ}), so the pairs nest too. Items of a
 * {@link BulkUpdate} report only {@link #onOutcome} and {@link #onConflict}.
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
     * A single-document operation starts, on the caller's thread; the start of a span around the whole call (every
     * attempt and wait), ended by {@link #onOutcome} or {@link #onFailure} on the same thread.
     *
     * @param index the index as the operation was given it
     * @param operation which operation
     */
    default void onStart(String index, Outcome.Operation operation) {}

    /**
     * A single-document operation throws instead of returning an outcome (the cluster failed or refused, the
     * function threw, the value could not be mapped); called on the caller's thread, with what the operation
     * throws before any {@link io.github.esrel.ExceptionTranslator} of the {@link Occ}.
     *
     * @param index the index as the operation was given it
     * @param operation which operation
     * @param failure what the operation throws
     * @param took from the start of the operation to the failure
     */
    default void onFailure(String index, Outcome.Operation operation, RuntimeException failure, Duration took) {}

    /**
     * With write combining (see {@link Occ}), one conditional write is about to be sent that carries the calls of
     * several callers on one document: their functions were applied in turn to one read. Called on the thread that
     * makes the write (a leader among the callers), only for writes that carry at least two calls; its conflicts
     * are then reported once per call, its outcomes once per call.
     *
     * @param index the index as the operations were given it
     * @param calls how many calls the write carries, at least 2
     */
    default void onCombinedWrite(String index, int calls) {}

    /**
     * An operation (or one bulk item) finished; called once per operation, whatever its status.
     *
     * @param outcome what the operation did; the same object the operation returns
     */
    default void onOutcome(Outcome<?> outcome) {}
}
