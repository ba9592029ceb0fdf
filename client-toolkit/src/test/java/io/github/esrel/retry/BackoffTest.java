package io.github.esrel.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private static Duration ms(long ms) {
        return Duration.ofMillis(ms);
    }

    @Test
    void shouldWaitTheSameDelayAfterEveryAttemptWhenFixed() {
        Backoff fixed = Backoff.fixed(ms(50));
        for (int attempt = 1; attempt <= 100; attempt++) {
            assertThat(fixed.delay(attempt)).isEqualTo(ms(50));
        }
        assertThat(Backoff.none().delay(7)).isEqualTo(Duration.ZERO);
    }

    @Test
    void shouldGrowExponentiallyUpToTheCap() {
        Backoff exp = Backoff.exponential(ms(10), 2.0, ms(1000));
        assertThat(exp.delay(1)).isEqualTo(ms(10));
        assertThat(exp.delay(2)).isEqualTo(ms(20));
        assertThat(exp.delay(3)).isEqualTo(ms(40));
        assertThat(exp.delay(7)).isEqualTo(ms(640));
        assertThat(exp.delay(8)).isEqualTo(ms(1000));
        assertThat(exp.delay(9)).isEqualTo(ms(1000));
        assertThat(exp.delay(Integer.MAX_VALUE))
                .as("no overflow far past the cap")
                .isEqualTo(ms(1000));
        assertThat(Backoff.exponential(ms(3), 1.5, ms(100)).delay(3)).isEqualTo(Duration.ofNanos(6_750_000));
        assertThat(Backoff.exponential(ms(10), 1.0, ms(10)).delay(50)).isEqualTo(ms(10));
    }

    @Test
    void shouldKeepJitteredDelaysWithinTheirBounds() {
        Backoff exp = Backoff.exponential(ms(10), 2.0, ms(1000));
        Backoff half = exp.withJitter(0.5, new SplittableRandom(42));
        Backoff full = exp.withJitter(1.0, new SplittableRandom(43));
        Backoff ready = Backoff.exponentialWithJitter(ms(10), 2.0, ms(1000));
        for (int attempt = 1; attempt <= 12; attempt++) {
            long d = exp.delay(attempt).toNanos();
            long minHalf = Long.MAX_VALUE;
            long maxHalf = 0;
            long minFull = Long.MAX_VALUE;
            for (int i = 0; i < 2000; i++) {
                long h = half.delay(attempt).toNanos();
                long f = full.delay(attempt).toNanos();
                long r = ready.delay(attempt).toNanos();
                assertThat(h).isBetween(d / 2, d);
                assertThat(r).isBetween(d / 2, d);
                assertThat(f).isBetween(0L, d);
                minHalf = Math.min(minHalf, h);
                maxHalf = Math.max(maxHalf, h);
                minFull = Math.min(minFull, f);
            }
            // The draws really spread over the interval (not stuck at one end).
            assertThat(minHalf).isLessThan(d / 2 + d / 10);
            assertThat(maxHalf).isGreaterThan(d - d / 10);
            assertThat(minFull).isLessThan(d / 10);
        }
    }

    @Test
    void shouldNotChangeDelaysWithZeroJitterOrZeroDelay() {
        Backoff exp = Backoff.exponential(ms(10), 2.0, ms(1000));
        assertThat(exp.withJitter(0.0).delay(3)).isEqualTo(ms(40));
        assertThat(Backoff.none().withJitter(1.0).delay(3)).isEqualTo(Duration.ZERO);
    }

    @Test
    void shouldUseTheGivenRandomGenerator() {
        RandomGenerator alwaysLow = new RandomGenerator() {
            @Override
            public long nextLong() {
                return 0;
            }

            @Override
            public long nextLong(long origin, long bound) {
                return origin;
            }
        };
        assertThat(Backoff.fixed(ms(100)).withJitter(0.25, alwaysLow).delay(1)).isEqualTo(ms(75));
    }

    @Test
    void shouldRejectImpossibleShapesNamingTheValue() {
        assertThatThrownBy(() -> Backoff.fixed(ms(-1))).hasMessage("delay must not be negative, got PT-0.001S");
        assertThatThrownBy(() -> Backoff.exponential(ms(10), 0.5, ms(100)))
                .hasMessage("multiplier must be a finite number >= 1, got 0.5");
        assertThatThrownBy(() -> Backoff.exponential(ms(10), Double.NaN, ms(100)))
                .hasMessage("multiplier must be a finite number >= 1, got NaN");
        assertThatThrownBy(() -> Backoff.exponential(ms(10), 2, ms(5)))
                .hasMessage("max [PT0.005S] must not be less than initial [PT0.01S]");
        assertThatThrownBy(() -> Backoff.fixed(ms(1)).withJitter(1.5))
                .hasMessage("jitter ratio must be between 0 and 1, got 1.5");
        assertThatThrownBy(() -> Backoff.fixed(ms(1)).delay(0)).hasMessage("attempt numbers start at 1, got 0");
    }

    @Test
    void shouldDescribeItselfReadably() {
        assertThat(Backoff.exponentialWithJitter(ms(5), 2.0, ms(500)))
                .hasToString("exponential(5ms x2.0 up to 500ms) with jitter 0.5");
        assertThat(Backoff.fixed(ms(50))).hasToString("fixed(50ms)");
    }
}
