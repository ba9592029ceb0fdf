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

    /** The job's id, also the id of its checkpoint document: pass it to {@link Propagator#resume}. */
    public String id() {
        return id;
    }

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

    public boolean isDone() {
        return result.isDone();
    }

    /** The latest progress, or {@code null} before the first page. */
    public Progress progress() {
        return control.progress();
    }

    /**
     * Waits for the end.
     *
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

    /** Waits at most {@code timeout}; empty if the job is still running then. */
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

    /** The result as a future, for composition. */
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
