package io.github.esrel.denorm;

import java.time.Duration;

/**
 * Follows a propagation job, like the client's {@code BulkIngester} listener: progress for a progress
 * bar, and every child that met a conflict or could not be written.
 *
 * <p>Every method is a no-op by default. They are called synchronously and one at a time for a job, never two at
 * once: from the thread that runs the job (the caller's for {@link Propagator#propagate}, the job's own thread for
 * {@link Propagator#start}), and, with more than one bulk in flight (the default, see
 * {@link Propagator.Builder#bulksInFlight}), {@link #beforeBulk}, {@link #onConflict}, {@link #onRejected} and
 * {@link #onFailure} from the threads that write the pages, where calls for two pages in flight may interleave.
 * Jobs of one propagator run concurrently, so a listener shared by them must be thread-safe. A listener that
 * throws cannot break the job: the exception is logged and ignored. A slow listener slows the job.
 */
public interface PropagationListener {

    /** A listener that does nothing. */
    PropagationListener NO_OP = new PropagationListener() {};

    /**
     * The job starts (or resumes).
     *
     * @param jobId the job
     * @param parentId the parent
     */
    default void onStart(String jobId, String parentId) {}

    /**
     * A conditional {@code _bulk} request is about to be sent.
     *
     * @param jobId the job
     * @param pass 1 for the main pass
     * @param documents children in the request
     */
    default void beforeBulk(String jobId, int pass, int documents) {}

    /**
     * After every page of children, with the counts so far.
     *
     * @param progress the counts, rate and ETA of the job so far
     */
    default void onProgress(Progress progress) {}

    /**
     * A child changed after it was read (a concurrent edit): it is re-read and the copies re-applied on
     * top of the edit.
     *
     * @param jobId the job
     * @param childId the id of the child that conflicted
     */
    default void onConflict(String jobId, String childId) {}

    /**
     * {@code documents} writes were rejected with 429; they are sent again after {@code backoff}.
     *
     * @param jobId the job
     * @param documents the number of writes rejected
     * @param backoff the wait before they are sent again
     */
    default void onRejected(String jobId, int documents, Duration backoff) {}

    /**
     * A child could not be brought up to date. Every such child is reported here, none is dropped.
     *
     * @param jobId the job
     * @param failure the child, the status and the reason
     */
    default void onFailure(String jobId, ChildFailure failure) {}

    /**
     * The job ended (also when cancelled); not called when it fails as a whole.
     *
     * @param result what the job did; the same result {@code propagate} returns
     */
    default void onFinish(PropagationResult result) {}

    /**
     * The job failed as a whole; its checkpoint says {@code FAILED} and it can be resumed.
     *
     * @param jobId the job
     * @param failure what stopped it: the {@link PropagationException} then thrown by
     *     {@link Propagator#propagate} or {@link PropagationJob#await()}
     */
    default void onJobFailure(String jobId, Throwable failure) {}
}
