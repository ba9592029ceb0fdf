package io.github.esrel.plugin.lock;

import org.elasticsearch.tasks.CancellableTask;

/**
 * Tells a waiting acquire that nobody waits for its answer any more (the HTTP client went away), so that it
 * stops waiting and takes nothing.
 */
public interface Cancellation {

    /** A request that is never cancelled. */
    Cancellation NONE = new Cancellation() {
        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public void onCancel(Runnable listener) {}
    };

    /**
     * Whether the request has been cancelled.
     *
     * @return {@code true} once cancelled, for good
     */
    boolean isCancelled();

    /**
     * Registers {@code listener} to run when the request is cancelled, at once if it already is.
     *
     * @param listener runs once, on the thread that cancels
     */
    void onCancel(Runnable listener);

    /**
     * The cancellation of a task: Elasticsearch cancels the task of a REST request whose connection closes.
     *
     * @param task the task of the request
     * @return a cancellation that follows {@code task}
     */
    static Cancellation of(CancellableTask task) {
        return new Cancellation() {
            @Override
            public boolean isCancelled() {
                return task.isCancelled();
            }

            @Override
            public void onCancel(Runnable listener) {
                task.addListener(listener::run);
            }
        };
    }
}
