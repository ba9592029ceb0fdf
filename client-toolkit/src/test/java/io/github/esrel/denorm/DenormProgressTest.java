package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Throttling, progress and the retry decision for failed bulk items: pure logic. */
class DenormProgressTest {

    @Test
    void shouldPaceBatchesToTheRateWithoutSavingUpBursts() {
        AtomicLong now = new AtomicLong(0);
        Throttle t = new Throttle(1000, now::get);
        assertThat(t.acquire(500)).isEqualTo(Duration.ZERO);
        assertThat(t.acquire(500)).isEqualTo(Duration.ofMillis(500));
        assertThat(t.acquire(500)).isEqualTo(Duration.ofMillis(1000));
        now.set(Duration.ofSeconds(10).toNanos()); // idle for a long time: no burst allowance
        assertThat(t.acquire(500)).isEqualTo(Duration.ZERO);
        assertThat(t.acquire(500)).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void shouldShrinkBatchesToAboutASecondOfTheRate() {
        assertThat(new Throttle(300, System::nanoTime).batchSize(1000)).isEqualTo(300);
        assertThat(new Throttle(0.5, System::nanoTime).batchSize(1000)).isEqualTo(1);
        assertThat(new Throttle(5000, System::nanoTime).batchSize(1000)).isEqualTo(1000);
        assertThat(Throttle.none().batchSize(1000)).isEqualTo(1000);
        assertThat(Throttle.none().acquire(1_000_000)).isEqualTo(Duration.ZERO);
    }

    @Test
    void shouldDrawAProgressBar() {
        Progress p = new Progress(
                "j",
                "1",
                1,
                new JobCounts(1000, 450, 440, 10, 0, 0, 0, 0, 1),
                Duration.ofSeconds(3),
                150.0,
                Duration.ofSeconds(3));
        assertThat(p.fraction()).isEqualTo(0.45);
        assertThat(p.bar(20)).startsWith("[#########...........]  45%  450/1000  150 docs/s  ETA 3s");
        Progress unknown = new Progress("j", "1", 1, JobCounts.NONE, Duration.ZERO, 0, null);
        assertThat(unknown.fraction()).isZero();
        assertThat(unknown.bar(4)).isEqualTo("[....]   0%  0/?  0 docs/s");
        assertThat(new Progress("j", "1", 1, new JobCounts(0, 0, 0, 0, 0, 0, 0, 0, 1), Duration.ZERO, 0, null)
                        .fraction())
                .isEqualTo(1.0);
    }

    @Test
    void shouldRetryA429BulkItemUnderTheDefaultPolicyUntilItRunsOut() {
        RetryPolicy policy = Propagator.Builder.DEFAULT_RETRY_POLICY.toBuilder()
                .backoff(Backoff.fixed(Duration.ofMillis(7)))
                .build();
        var attempts = policy.attempts();
        var rejected = Failures.ofBulkItem(429, null);
        for (int i = 1; i < policy.maxAttempts(); i++) {
            assertThat(attempts.onFailure(rejected)).contains(Duration.ofMillis(7));
        }
        assertThat(attempts.onFailure(rejected)).isEmpty();
        assertThat(policy.attempts().onFailure(Failures.ofBulkItem(409, null)))
                .as("conflicts are retried too")
                .isPresent();
        assertThat(policy.attempts().onFailure(Failures.ofBulkItem(400, null)))
                .as("a refused document is not")
                .isEmpty();
    }
}
