package io.github.esrel.view;

/**
 * Follows a {@link MaterializedView}'s rebuilds and repairs. Every method is a no-op by default; they
 * are called synchronously on the thread that called the view's method. A listener that throws cannot
 * break the operation: the exception is logged and ignored.
 */
public interface ViewListener {

    /** A listener that does nothing. */
    ViewListener NO_OP = new ViewListener() {};

    /**
     * A batch of views was written (or refused as stale).
     *
     * @param batch what the batch did: its counts and failures
     */
    default void afterBatch(RebuildResult batch) {}

    /**
     * A write was refused because the view already has version {@code version} or newer (expected:
     * a rebuild of a later snapshot won).
     *
     * @param viewId the view's id (the source document's id)
     * @param version the external version of the refused write
     */
    default void onStale(String viewId, long version) {}

    /**
     * A view could not be rebuilt; its intent, if any, stays for {@link MaterializedView#repair()}.
     *
     * @param failure which view and why
     */
    default void onFailure(ViewFailure failure) {}

    /**
     * An unfinished intent found by {@link MaterializedView#repair()} was replayed.
     *
     * @param intent the intent, as recorded before the source write it covered
     */
    default void onIntentReplayed(Intent intent) {}

    /**
     * An intent was recorded durably ({@link MaterializedView#beginSourceChange}, {@link
     * MaterializedView#beginParentChange}, or inside {@code changeSource}/{@code changeParent}), before the write it
     * covers. With {@link #onIntentCleared} it tells how many intents of this process are pending.
     *
     * @param intent the recorded intent
     */
    default void onIntentRecorded(Intent intent) {}

    /**
     * An intent was cleared: every view it covers was rebuilt ({@link MaterializedView#complete}, a change, or a
     * replay by {@link MaterializedView#repair()}, which may clear intents another process recorded).
     *
     * @param intent the cleared intent
     */
    default void onIntentCleared(Intent intent) {}
}
