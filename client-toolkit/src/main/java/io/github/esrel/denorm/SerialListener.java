package io.github.esrel.denorm;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One job's listener, called by one thread at a time. With more than one bulk in flight (the default) the writer
 * threads report conflicts, rejections and failures while the job's thread reports progress: the user's listener
 * still sees one call after another, never two at once, so it needs no locking of its own for one job.
 */
final class SerialListener implements PropagationListener {

    private final PropagationListener delegate;

    SerialListener(PropagationListener delegate) {
        this.delegate = delegate;
    }

    @Override
    public synchronized void onStart(String jobId, String parentId) {
        delegate.onStart(jobId, parentId);
    }

    @Override
    public synchronized void beforeBulk(String jobId, int pass, int documents) {
        delegate.beforeBulk(jobId, pass, documents);
    }

    @Override
    public synchronized void onProgress(Progress progress) {
        delegate.onProgress(progress);
    }

    @Override
    public synchronized void onConflict(String jobId, String childId) {
        delegate.onConflict(jobId, childId);
    }

    @Override
    public synchronized void onRejected(String jobId, int documents, Duration backoff) {
        delegate.onRejected(jobId, documents, backoff);
    }

    @Override
    public synchronized void onFailure(String jobId, ChildFailure failure) {
        delegate.onFailure(jobId, failure);
    }

    @Override
    public synchronized void onFinish(PropagationResult result) {
        delegate.onFinish(result);
    }

    @Override
    public synchronized void onJobFailure(String jobId, Throwable failure) {
        delegate.onJobFailure(jobId, failure);
    }

    @Override
    public synchronized void onPageStart(String jobId, int pass, long page, int documents) {
        delegate.onPageStart(jobId, pass, page, documents);
    }

    @Override
    public synchronized void onPageEnd(String jobId, long page, @Nullable Throwable failure) {
        delegate.onPageEnd(jobId, page, failure);
    }

    @Override
    public synchronized void onCheckpoint(String jobId, JobState state, Instant at) {
        delegate.onCheckpoint(jobId, state, at);
    }
}
