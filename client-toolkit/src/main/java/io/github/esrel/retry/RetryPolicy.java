package io.github.esrel.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * When and how often to try an operation again: at most {@link #maxAttempts()} attempts, waiting
 * {@link #backoff()} between them, within an optional overall {@link #deadline()}, and only for
 * failures the {@link #retryOn() retry predicate} accepts. Immutable and thread-safe; share one.
 *
 * <pre>{@code
 * RetryPolicy policy = RetryPolicy.of(b -> b
 *     .maxAttempts(20)
 *     .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(5), 2.0, Duration.ofMillis(200)))
 *     .deadline(Duration.ofSeconds(5))
 *     .retryOn(Failures.versionConflict().or(Failures.rejected())));
 * }</pre>
 *
 * <p>The optimistic updater ({@code io.github.esrel.occ}) runs its read-modify-write loop under a
 * policy; {@link #call} retries any call; {@link #attempts()} drives a custom loop.
 */
public final class RetryPolicy {

    /** Default attempts: enough for a few writers contending for one document. */
    public static final int DEFAULT_MAX_ATTEMPTS = 10;
    /** Default backoff: 5 ms doubling up to 500 ms, each delay uniform in [d/2, d]. */
    public static final Backoff DEFAULT_BACKOFF =
            Backoff.exponentialWithJitter(Duration.ofMillis(5), 2.0, Duration.ofMillis(500));

    private static final RetryPolicy DEFAULTS = new Builder().build();
    private static final RetryPolicy NONE = new Builder().maxAttempts(1).build();

    private final int maxAttempts;
    private final Backoff backoff;
    private final @Nullable Duration deadline;
    private final Predicate<Throwable> retryOn;
    private final Sleeper sleeper;
    private final LongSupplier nanoClock;

    private RetryPolicy(Builder b) {
        this.maxAttempts = b.maxAttempts;
        this.backoff = b.backoff;
        this.deadline = b.deadline;
        this.retryOn = b.retryOn;
        this.sleeper = b.sleeper;
        this.nanoClock = b.nanoClock;
    }

    /**
     * Builds a policy in one expression, starting from the defaults.
     *
     * @param fn sets the options on the builder it is given and returns it
     * @return the new policy
     */
    public static RetryPolicy of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * A builder starting from the defaults (those of {@link #defaults()}).
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@value #DEFAULT_MAX_ATTEMPTS} attempts, {@link #DEFAULT_BACKOFF}, no deadline, retrying version
     * conflicts (409) and rejections (429).
     *
     * @return the shared default policy
     */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /**
     * One attempt, no retry.
     *
     * @return the shared policy that never retries
     */
    public static RetryPolicy none() {
        return NONE;
    }

    /**
     * A builder starting from this policy's settings.
     *
     * @return a new builder; changing it leaves this policy unchanged
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.maxAttempts = maxAttempts;
        b.backoff = backoff;
        b.deadline = deadline;
        b.retryOn = retryOn;
        b.sleeper = sleeper;
        b.nanoClock = nanoClock;
        return b;
    }

    /**
     * The most attempts an operation makes, the first included (1 = never retry).
     *
     * @return the maximum number of attempts, at least 1
     */
    public int maxAttempts() {
        return maxAttempts;
    }

    /**
     * How long to wait between attempts.
     *
     * @return the backoff, never {@code null}
     */
    public Backoff backoff() {
        return backoff;
    }

    /**
     * The overall time budget of one operation, measured from its start, or {@code null} for none. A
     * retry whose backoff would end after the deadline is not made; an attempt already running is not
     * cut short.
     *
     * @return the deadline, or {@code null} when there is none
     */
    public @Nullable Duration deadline() {
        return deadline;
    }

    /**
     * Which failures are worth another attempt.
     *
     * @return the retry predicate
     */
    public Predicate<Throwable> retryOn() {
        return retryOn;
    }

    /**
     * How the policy waits between attempts.
     *
     * @return the sleeper, by default {@link Sleeper#SYSTEM}
     */
    public Sleeper sleeper() {
        return sleeper;
    }

    /**
     * Starts tracking one operation under this policy (its clock starts now).
     *
     * @return a new, not thread-safe tracker for one operation
     */
    public Attempts attempts() {
        return new Attempts(this);
    }

    /**
     * Runs {@code call} until it returns, retrying failures the policy accepts.
     *
     * @param <T> the type of the result
     * @param call the operation to run; any exception it throws counts as a failed attempt
     * @return the result of the first attempt that succeeds
     * @throws NullPointerException if {@code call} is {@code null}
     * @throws RetryException when a failure is not retryable or the policy is exhausted; the cause is
     *     the last failure, the exception says how many attempts were made and why none followed
     */
    public <T> T call(Callable<T> call) {
        Objects.requireNonNull(call, "call cannot be null");
        Attempts attempts = attempts();
        while (true) {
            try {
                return call.call();
            } catch (Exception e) {
                if (!attempts.retryAfter(e)) {
                    throw new RetryException(
                            "gave up after " + attempts.attempt() + " attempt(s) (" + attempts.stopReason() + "): "
                                    + e.getMessage(),
                            attempts.attempt(),
                            attempts.stopReason(),
                            e);
                }
            }
        }
    }

    long nanoTime() {
        return nanoClock.getAsLong();
    }

    @Override
    public String toString() {
        return "RetryPolicy{maxAttempts=" + maxAttempts + ", backoff=" + backoff + ", deadline="
                + (deadline == null ? "none" : deadline) + '}';
    }

    /** Builder for {@link RetryPolicy}. Not thread-safe. */
    public static final class Builder {
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Backoff backoff = DEFAULT_BACKOFF;
        private @Nullable Duration deadline;
        private Predicate<Throwable> retryOn = Failures.versionConflict().or(Failures.rejected());
        private Sleeper sleeper = Sleeper.SYSTEM;
        private LongSupplier nanoClock = System::nanoTime;

        private Builder() {}

        /**
         * Attempts in all, the first included. Default {@value #DEFAULT_MAX_ATTEMPTS}.
         *
         * @param maxAttempts the maximum number of attempts; 1 means never retry
         * @return this builder
         * @throws IllegalArgumentException if less than 1
         */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * How long to wait between attempts. Default {@link RetryPolicy#DEFAULT_BACKOFF}.
         *
         * @param backoff the backoff, not {@code null}
         * @return this builder
         */
        public Builder backoff(Backoff backoff) {
            this.backoff = Objects.requireNonNull(backoff, "backoff cannot be null");
            return this;
        }

        /**
         * Overall time budget per operation. Default: none.
         *
         * @param deadline the budget, measured from the start of each operation; not {@code null}
         *     (use {@link #noDeadline()} to remove it)
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder deadline(Duration deadline) {
            // Not internal.Checks: internal builds on retry, and the packages must not form a cycle.
            Objects.requireNonNull(deadline, "deadline cannot be null");
            if (deadline.isNegative() || deadline.isZero()) {
                throw new IllegalArgumentException("deadline must be positive, got " + deadline);
            }
            this.deadline = deadline;
            return this;
        }

        /**
         * Removes the deadline, say from a builder of a policy that has one ({@link RetryPolicy#toBuilder()}):
         * operations are then bounded by {@link #maxAttempts(int)} alone.
         *
         * @return this builder
         */
        public Builder noDeadline() {
            this.deadline = null;
            return this;
        }

        /**
         * Which failures to retry. Default: version conflicts (409) and rejections (429), see
         * {@link Failures}.
         *
         * @param retryOn accepts the failures worth another attempt; not {@code null}
         * @return this builder
         */
        public Builder retryOn(Predicate<Throwable> retryOn) {
            this.retryOn = Objects.requireNonNull(retryOn, "retryOn cannot be null");
            return this;
        }

        /**
         * How to wait between attempts. Default {@link Sleeper#SYSTEM}; tests inject a fake.
         *
         * @param sleeper the sleeper, not {@code null}
         * @return this builder
         */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper cannot be null");
            return this;
        }

        /**
         * The clock the deadline is measured with, in nanoseconds. Default {@link System#nanoTime}.
         *
         * @param nanoClock a monotonic clock in nanoseconds, not {@code null}
         * @return this builder
         */
        public Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock cannot be null");
            return this;
        }

        /**
         * Creates the policy from the current settings.
         *
         * @return a new immutable policy
         */
        public RetryPolicy build() {
            return new RetryPolicy(this);
        }
    }
}
