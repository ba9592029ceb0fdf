package io.github.esrel.denorm;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Cancellation and the latest progress of one job, shared between the job and its handle. */
final class JobControl {

    private final CountDownLatch cancelled = new CountDownLatch(1);
    private volatile Progress progress;

    /** Until the first page is written: nothing done, the total unknown. */
    JobControl(String jobId, String parentId) {
        this.progress = new Progress(jobId, parentId, 1, JobCounts.NONE, Duration.ZERO, 0.0, null);
    }

    void cancel() {
        cancelled.countDown();
    }

    boolean cancelled() {
        return cancelled.getCount() == 0;
    }

    /**
     * Waits {@code delay} unless cancelled first.
     *
     * @return false when cancelled (before or during the wait)
     * @throws InterruptedException if the thread is interrupted
     */
    boolean pause(Duration delay) throws InterruptedException {
        if (delay.isZero() || delay.isNegative()) {
            return !cancelled();
        }
        return !cancelled.await(delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    Progress progress() {
        return progress;
    }

    void progress(Progress p) {
        this.progress = p;
    }
}
