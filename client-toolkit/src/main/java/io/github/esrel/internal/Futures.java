package io.github.esrel.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What esrel's engines need to run one implementation of a rule in both forms of its API. An engine's steps return
 * {@link CompletableFuture}s; the blocking form sends its requests on the caller's thread and gets futures that are
 * complete when returned (so a step chains inline, with no thread hop), and {@link #await} hands the result, or the
 * step's own exception, to the caller; the non-blocking form sends through elasticsearch-java's async client and
 * returns the future.
 */
public final class Futures {

    private static final CompletableFuture<@Nullable Void> DONE = CompletableFuture.completedFuture(null);

    private Futures() {}

    /** A call that throws, as a future: completed with its result, or failed with its exception. */
    @FunctionalInterface
    public interface Call<T extends @Nullable Object> {
        T call() throws IOException;
    }

    /** Runs {@code call} now, on this thread; its result or its exception as a complete future. */
    public static <T extends @Nullable Object> CompletableFuture<T> now(Call<T> call) {
        try {
            return CompletableFuture.completedFuture(call.call());
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A complete future of nothing. */
    public static CompletableFuture<@Nullable Void> done() {
        return DONE;
    }

    /**
     * The exception a failed stage stands for: {@link CompletionException}s and {@link ExecutionException}s, which
     * {@code CompletableFuture} wraps around a stage's own exception, taken off.
     */
    public static Throwable unwrap(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * Fails the stage being run with {@code t} as it is: thrown inside a stage, a runtime exception would reach the
     * future wrapped once in a {@link CompletionException} anyway, and an {@link IOException} cannot be thrown there.
     */
    public static CompletionException rethrow(Throwable t) {
        return t instanceof CompletionException ce ? ce : new CompletionException(t);
    }

    /**
     * The result of a future the blocking form made, with the exception its step threw: a runtime exception, an
     * {@link Error} or an {@link IOException} as they are. Blocks while the future is not complete (it is, when every
     * step sent its requests on this thread); an interrupt meanwhile leaves the flag set and throws an
     * {@link IOException} that says so.
     */
    public static <T extends @Nullable Object> T await(CompletableFuture<T> future) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for an answer", e);
        } catch (ExecutionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof IOException io) {
                throw io;
            }
            throw unchecked(cause);
        }
    }

    /** {@code t} as an unchecked exception to throw: itself, or wrapped in a {@link CompletionException}. */
    public static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException e) {
            return e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new CompletionException(t);
    }

    /** Completes after {@code delay}, on no thread of the caller's: at once when the delay is not positive. */
    public static CompletableFuture<@Nullable Void> delay(Duration delay) {
        long nanos = delay.toNanos();
        if (nanos <= 0) {
            return DONE;
        }
        return CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS));
    }
}
