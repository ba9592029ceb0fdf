package io.github.esrel.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The attempts of one operation under a {@link RetryPolicy}: counts them, decides whether a failure
 * earns another one, and waits the backoff. Not thread-safe: one per operation.
 *
 * <pre>{@code
 * Attempts attempts = policy.attempts();
 * while (true) {
 *     try {
 *         return doIt();
 *     } catch (ElasticsearchException e) {
 *         if (!attempts.retryAfter(e)) {       // waits the backoff when it returns true
 *             throw giveUp(attempts.attempt(), attempts.stopReason(), e);
 *         }
 *     }
 * }
 * }</pre>
 */
public final class Attempts {

    private final RetryPolicy policy;
    private final long startNanos;
    private int attempt = 1;
    private StopReason stopReason = StopReason.NONE;

    Attempts(RetryPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy cannot be null");
        this.startNanos = policy.nanoTime();
    }

    /**
     * The number of the attempt in progress (or the last one made): 1 for the first.
     *
     * @return the attempt number, at least 1
     */
    public int attempt() {
        return attempt;
    }

    /**
     * Why the operation may not be retried again; {@link StopReason#NONE} while it may.
     *
     * @return the stop reason, never {@code null}
     */
    public StopReason stopReason() {
        return stopReason;
    }

    /**
     * Time since this operation started, on the policy's clock.
     *
     * @return the time elapsed since {@link RetryPolicy#attempts()} created this object
     */
    public Duration elapsed() {
        return Duration.ofNanos(policy.nanoTime() - startNanos);
    }

    /**
     * Records that the current attempt failed and decides, without waiting, whether another is allowed.
     * If so, the attempt number advances and the delay to wait is returned; if not, the result is
     * empty and {@link #stopReason()} says why. For callers that wait once for many operations (a
     * bulk round); single operations use {@link #retryAfter}.
     *
     * @param failure the failure of the current attempt, judged by the policy's retry predicate
     * @return the delay to wait before the next attempt, or empty when no further attempt is allowed
     *     (also once a stop reason has been recorded)
     */
    public Optional<Duration> onFailure(Throwable failure) {
        if (stopReason != StopReason.NONE) {
            return Optional.empty();
        }
        if (!policy.retryOn().test(failure)) {
            stopReason = StopReason.NOT_RETRYABLE;
            return Optional.empty();
        }
        if (attempt >= policy.maxAttempts()) {
            stopReason = StopReason.MAX_ATTEMPTS;
            return Optional.empty();
        }
        Duration delay = policy.backoff().delay(attempt);
        Duration deadline = policy.deadline();
        if (deadline != null && elapsed().plus(delay).compareTo(deadline) >= 0) {
            stopReason = StopReason.DEADLINE;
            return Optional.empty();
        }
        attempt++;
        return Optional.of(delay);
    }

    /**
     * {@link #onFailure} and, when another attempt is allowed, the wait before it.
     *
     * @param failure the failure of the current attempt, judged by the policy's retry predicate
     * @return true if the caller should make another attempt; false when it must stop
     *     ({@link #stopReason()} says why; an interrupt while waiting is {@link StopReason#INTERRUPTED}
     *     and leaves the thread's interrupt flag set)
     */
    public boolean retryAfter(Throwable failure) {
        Optional<Duration> delay = onFailure(failure);
        return delay.isPresent() && sleep(delay.get());
    }

    /**
     * Waits {@code delay} with the policy's sleeper; false (and {@link StopReason#INTERRUPTED}) when
     * interrupted.
     *
     * @param delay the time to wait
     * @return true after the full wait; false if the thread was interrupted, in which case its
     *     interrupt flag is set again and {@link #stopReason()} becomes {@link StopReason#INTERRUPTED}
     */
    public boolean sleep(Duration delay) {
        try {
            policy.sleeper().sleep(delay);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopReason = StopReason.INTERRUPTED;
            return false;
        }
    }

    @Override
    public String toString() {
        return "Attempts{attempt=" + attempt + ", stopReason=" + stopReason + ", policy=" + policy + '}';
    }
}
