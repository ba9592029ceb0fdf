package io.github.esrel.denorm;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

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

    /**
     * A page of children read from the child index is handed to the writer (after its children were decided: those
     * already up to date are not written). With more than one bulk in flight, pages overlap; each is ended by one
     * {@link #onPageEnd} with the same {@code page}, possibly on another thread.
     *
     * @param jobId the job
     * @param pass 1 for the main pass
     * @param page the page's number in this run of the job, from 1
     * @param documents the children read in the page
     */
    default void onPageStart(String jobId, int pass, long page, int documents) {}

    /**
     * The writes of a page are over (every child written, up to date, or failed and reported), or the page failed
     * as a whole.
     *
     * @param jobId the job
     * @param page the number {@link #onPageStart} gave
     * @param failure what ended the page, {@code null} when it was written
     */
    default void onPageEnd(String jobId, long page, @Nullable Throwable failure) {}

    /**
     * The job's checkpoint was saved (at the start, every {@link Propagator.Builder#checkpointInterval} while it
     * runs, and at its end): a resume continues from here.
     *
     * @param jobId the job
     * @param state the state the checkpoint records
     * @param at when it was saved, by the job's clock
     */
    default void onCheckpoint(String jobId, JobState state, Instant at) {}
}
