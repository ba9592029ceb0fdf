package io.github.esrel.plugin.lock.commit;

import java.util.concurrent.Executor;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.threadpool.Scheduler;
import org.elasticsearch.threadpool.ThreadPool;

/**
 * Where the tree locks run work and measure deadlines: the node's generic pool and scheduler in production, a
 * virtual clock in unit tests, so that retries, backoffs and waits can be tested without sleeping.
 */
public interface TaskScheduler {

    /** A scheduled task that has not run yet can be called off. */
    interface Cancellable {
        /** Keeps the task from running if it has not started; does nothing otherwise. */
        void cancel();
    }

    /**
     * The time deadlines are measured in, as {@link System#nanoTime()}: only differences mean anything.
     *
     * @return the current time, nanoseconds
     */
    long nanoTime();

    /**
     * Runs {@code task} on another thread, or on this one when the executor refuses it: only a node that is
     * shutting down refuses, and then the work goes on here so that its waiters fail on the closed node rather
     * than never being answered.
     *
     * @param task the work
     */
    void execute(Runnable task);

    /**
     * Runs {@code task} on another thread after {@code delayMillis}.
     *
     * @param task        the work
     * @param delayMillis how long to wait first, milliseconds
     * @return the scheduled task, to call it off
     * @throws RuntimeException when the node is shutting down and schedules nothing any more
     */
    Cancellable schedule(Runnable task, long delayMillis);

    /**
     * The node's generic pool and scheduler; tasks inherit the thread context of whoever hands them over.
     *
     * @param threadPool the node's thread pool
     * @return a scheduler on it
     */
    static TaskScheduler of(ThreadPool threadPool) {
        Executor generic = threadPool.generic();
        return new TaskScheduler() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public void execute(Runnable task) {
                try {
                    generic.execute(task);
                } catch (RuntimeException e) {
                    task.run();
                }
            }

            @Override
            public Cancellable schedule(Runnable task, long delayMillis) {
                Scheduler.Cancellable scheduled =
                        threadPool.schedule(task, TimeValue.timeValueMillis(delayMillis), generic);
                return scheduled::cancel;
            }
        };
    }
}
