package io.github.esrel.denorm;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A propagation running in the background ({@link Propagator#start}). Thread-safe.
 */
public final class PropagationJob {

    private final String id;
    private final String parentId;
    private final JobControl control;
    private final CompletableFuture<PropagationResult> result;

    PropagationJob(String id, String parentId, JobControl control, CompletableFuture<PropagationResult> result) {
        this.id = id;
        this.parentId = parentId;
        this.control = control;
        this.result = result;
    }

    /**
     * The job's id, also the id of its checkpoint document: pass it to {@link Propagator#resume}.
     *
     * @return the job id ({@code relation:parentId:random})
     */
    public String id() {
        return id;
    }

    /**
     * The parent whose fields the job propagates.
     *
     * @return the parent's id
     */
    public String parentId() {
        return parentId;
    }

    /**
     * Asks the job to stop after the page it is writing; a throttled job stops waiting at once. The job
     * then ends {@code CANCELLED}, its checkpoint too; {@link Propagator#resume} continues it.
     */
    public void cancel() {
        control.cancel();
    }

    /**
     * Whether the job has ended, in any state, or failed as a whole. Does not block.
     *
     * @return true once {@link #await()} would return or throw without waiting
     */
    public boolean isDone() {
        return result.isDone();
    }

    /**
     * The latest progress: until the first page is written, a progress with nothing done and the total unknown
     * ({@code -1}).
     *
     * @return the progress last reported to the listener, or the initial one; never {@code null}
     */
    public Progress progress() {
        return control.progress();
    }

    /**
     * Waits for the end.
     *
     * @return the result: {@code COMPLETED}, {@code COMPLETED_WITH_FAILURES}, {@code CANCELLED} or
     *     {@code PARENT_NOT_FOUND}
     * @throws PropagationException if the job failed as a whole (the cause is kept)
     * @throws IllegalStateException if the waiting thread is interrupted (its flag is set again)
     */
    public PropagationResult await() {
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for propagation " + id, e);
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    /**
     * Waits at most {@code timeout}; empty if the job is still running then.
     *
     * @param timeout the longest time to wait; zero or negative does not wait
     * @return the result, or empty if the job had not ended within {@code timeout}
     * @throws PropagationException if the job failed as a whole (the cause is kept)
     * @throws IllegalStateException if the waiting thread is interrupted (its flag is set again)
     */
    public Optional<PropagationResult> await(Duration timeout) {
        try {
            return Optional.of(result.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for propagation " + id, e);
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    /**
     * The result as a future, for composition.
     *
     * @return a new copy of the job's future: completing or cancelling it does not affect the job (use
     *     {@link #cancel()}); it completes exceptionally when the job fails as a whole
     */
    public CompletableFuture<PropagationResult> future() {
        return result.copy();
    }

    private PropagationException unwrap(ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof PropagationException pe) {
            return pe;
        }
        if (cause instanceof CancellationException) {
            return new PropagationException("propagation " + id + " was cancelled before it started", 0, cause);
        }
        return new PropagationException("propagation " + id + " failed: " + cause, 0, cause);
    }

    @Override
    public String toString() {
        return "PropagationJob{" + id + ", parent=" + parentId + (result.isDone() ? ", done" : ", running") + '}';
    }
}
