package io.github.esrel.view;

/**
 * Follows a {@link MaterializedView}'s rebuilds and repairs. Every method is a no-op by default; they
 * are called synchronously on the thread that called the view's method. A listener that throws cannot
 * break the operation: the exception is logged and ignored.
 */
public interface ViewListener {

    /** A listener that does nothing. */
    ViewListener NO_OP = new ViewListener() {};

    /** A batch of views was written (or refused as stale). */
    default void afterBatch(RebuildResult batch) {}

    /** A write was refused because the view already has version {@code stored} or newer (expected). */
    default void onStale(String viewId, long version) {}

    /** A view could not be rebuilt. */
    default void onFailure(ViewFailure failure) {}

    /** An unfinished intent found by {@link MaterializedView#repair()} was replayed. */
    default void onIntentReplayed(Intent intent) {}
}
