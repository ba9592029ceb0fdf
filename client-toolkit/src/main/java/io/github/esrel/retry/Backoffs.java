package io.github.esrel.retry;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/** The implementations behind {@link Backoff}'s factories; value classes with a readable toString. */
final class Backoffs {

    private Backoffs() {}

    static void checkAttempt(int failedAttempt) {
        if (failedAttempt < 1) {
            throw new IllegalArgumentException("attempt numbers start at 1, got " + failedAttempt);
        }
    }

    record Fixed(Duration delay) implements Backoff {
        @Override
        public Duration delay(int failedAttempt) {
            checkAttempt(failedAttempt);
            return delay;
        }

        @Override
        public String toString() {
            return "fixed(" + delay.toMillis() + "ms)";
        }
    }

    record Exponential(Duration initial, double multiplier, Duration max) implements Backoff {
        @Override
        public Duration delay(int failedAttempt) {
            checkAttempt(failedAttempt);
            // In doubles: initial × multiplier^n overflows a long long before the cap is reached.
            double nanos = initial.toNanos() * Math.pow(multiplier, failedAttempt - 1);
            return nanos >= max.toNanos() ? max : Duration.ofNanos((long) nanos);
        }

        @Override
        public String toString() {
            return "exponential(" + initial.toMillis() + "ms x" + multiplier + " up to " + max.toMillis() + "ms)";
        }
    }

    record Jittered(Backoff base, double ratio, @Nullable RandomGenerator random) implements Backoff {
        @Override
        public Duration delay(int failedAttempt) {
            long nanos = base.delay(failedAttempt).toNanos();
            if (nanos == 0 || ratio == 0) {
                return Duration.ofNanos(nanos);
            }
            RandomGenerator r = random == null ? ThreadLocalRandom.current() : random;
            long low = nanos - (long) (nanos * ratio);
            // nextLong(origin, bound) excludes bound; +1 keeps d itself reachable.
            return Duration.ofNanos(low == nanos ? nanos : r.nextLong(low, nanos + 1));
        }

        @Override
        public String toString() {
            return base + " with jitter " + ratio;
        }
    }
}
