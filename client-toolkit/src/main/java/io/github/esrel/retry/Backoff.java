package io.github.esrel.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * How long to wait after a failed attempt before the next one: a function from the number of the
 * attempt that just failed (1-based) to a delay. The one backoff shape of esrel; every retrying
 * component takes one.
 *
 * <pre>{@code
 * Backoff.fixed(Duration.ofMillis(50));                                              // 50, 50, 50, ...
 * Backoff.exponential(Duration.ofMillis(10), 2.0, Duration.ofSeconds(1));            // 10, 20, 40, ... 1000, 1000
 * Backoff.exponentialWithJitter(Duration.ofMillis(10), 2.0, Duration.ofSeconds(1));  // each in [d/2, d]
 * }</pre>
 *
 * <p>Implementations must be thread-safe: one policy is typically shared by many threads.
 */
@FunctionalInterface
public interface Backoff {

    /**
     * The wait before attempt {@code failedAttempt + 1}.
     *
     * @param failedAttempt the number of the attempt that just failed, 1 for the first
     * @return a non-negative delay
     */
    Duration delay(int failedAttempt);

    /**
     * No wait at all: retry at once.
     *
     * @return a backoff whose every delay is zero
     */
    static Backoff none() {
        return fixed(Duration.ZERO);
    }

    /**
     * The same delay after every attempt.
     *
     * @param delay the wait after each failed attempt; zero means none
     * @return a backoff that always returns {@code delay}
     * @throws NullPointerException if {@code delay} is {@code null}
     * @throws IllegalArgumentException if the delay is negative
     */
    static Backoff fixed(Duration delay) {
        requireNonNegative(delay, "delay");
        return new Backoffs.Fixed(delay);
    }

    /**
     * {@code initial × multiplier^(failedAttempt − 1)}, capped at {@code max}: 10 ms, 20 ms, 40 ms, …
     * for {@code (10 ms, 2.0, …)}.
     *
     * @param initial the delay after the first failed attempt
     * @param multiplier the factor applied for each further attempt, at least 1
     * @param max the cap on any delay
     * @return the exponential backoff
     * @throws NullPointerException if {@code initial} or {@code max} is {@code null}
     * @throws IllegalArgumentException if {@code initial} is negative, {@code multiplier < 1} (or not a
     *     number), or {@code max < initial}
     */
    static Backoff exponential(Duration initial, double multiplier, Duration max) {
        requireNonNegative(initial, "initial");
        Objects.requireNonNull(max, "max cannot be null");
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier must be a finite number >= 1, got " + multiplier);
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("max [" + max + "] must not be less than initial [" + initial + "]");
        }
        return new Backoffs.Exponential(initial, multiplier, max);
    }

    /**
     * {@link #exponential} with half of each delay randomized ({@code withJitter(0.5)}): each delay is
     * uniform in {@code [d/2, d]}, so writers that collided once do not collide again in lock step,
     * and never wait longer than the plain exponential shape would.
     *
     * @param initial the delay after the first failed attempt, before jitter
     * @param multiplier the factor applied for each further attempt, at least 1
     * @param max the cap on any delay, before jitter
     * @return the jittered exponential backoff
     * @throws NullPointerException if {@code initial} or {@code max} is {@code null}
     * @throws IllegalArgumentException as {@link #exponential} does
     */
    static Backoff exponentialWithJitter(Duration initial, double multiplier, Duration max) {
        return exponential(initial, multiplier, max).withJitter(0.5);
    }

    /**
     * This shape with a random part: each delay {@code d} becomes a uniform value in
     * {@code [d × (1 − ratio), d]}. {@code ratio} 0 keeps the delays, 1 is "full jitter" (uniform in
     * {@code [0, d]}). Randomness from {@link ThreadLocalRandom}.
     *
     * @param ratio the randomized fraction of each delay, from 0 to 1
     * @return a new backoff wrapping this one; this one is unchanged
     * @throws IllegalArgumentException unless {@code 0 <= ratio <= 1}
     */
    default Backoff withJitter(double ratio) {
        return withJitter(ratio, null);
    }

    /**
     * As {@link #withJitter(double)}, drawing from {@code random} (which must be thread-safe if the
     * backoff is shared; tests pass a seeded generator). {@code null} means {@link ThreadLocalRandom}.
     *
     * @param ratio the randomized fraction of each delay, from 0 to 1
     * @param random the source of randomness, or {@code null} for {@link ThreadLocalRandom}
     * @return a new backoff wrapping this one; this one is unchanged
     * @throws IllegalArgumentException unless {@code 0 <= ratio <= 1}
     */
    default Backoff withJitter(double ratio, @Nullable RandomGenerator random) {
        if (!(ratio >= 0.0 && ratio <= 1.0)) {
            throw new IllegalArgumentException("jitter ratio must be between 0 and 1, got " + ratio);
        }
        return new Backoffs.Jittered(this, ratio, random);
    }

    private static void requireNonNegative(Duration d, String name) {
        Objects.requireNonNull(d, name + " cannot be null");
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, got " + d);
        }
    }
}
