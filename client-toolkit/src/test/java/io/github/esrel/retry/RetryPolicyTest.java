package io.github.esrel.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    /** A clock that only moves when the fake sleeper "sleeps", recording every delay. */
    private static final class FakeTime implements Sleeper {
        long nanos;
        final List<Duration> slept = new ArrayList<>();

        @Override
        public void sleep(Duration delay) {
            slept.add(delay);
            nanos += delay.toNanos();
        }

        RetryPolicy.Builder policy() {
            return RetryPolicy.builder().sleeper(this).nanoClock(() -> nanos);
        }
    }

    private static ElasticsearchException status(int status) {
        return new ElasticsearchException(
                "test",
                ErrorResponse.of(r -> r.status(status)
                        .error(e -> e.type(status == 409 ? "version_conflict_engine_exception" : "x")
                                .reason("status " + status))));
    }

    @Test
    void shouldRetryConflictsAndRejectionsByDefault() {
        RetryPolicy p = RetryPolicy.defaults();
        assertThat(p.retryOn().test(status(409))).isTrue();
        assertThat(p.retryOn().test(status(429))).isTrue();
        assertThat(p.retryOn().test(status(400))).isFalse();
        assertThat(p.retryOn().test(new IOException("connection reset"))).isFalse();
        assertThat(p.maxAttempts()).isEqualTo(10);
        assertThat(p.deadline()).isNull();
    }

    @Test
    void shouldFindTheStatusThroughWrappingExceptions() {
        RuntimeException wrapped = new RuntimeException("outer", new IllegalStateException("mid", status(409)));
        assertThat(Failures.status(wrapped)).isEqualTo(409);
        assertThat(Failures.isVersionConflict(wrapped)).isTrue();
        assertThat(Failures.status(new IOException("x"))).isZero();
        assertThat(Failures.isRejected(Failures.ofBulkItem(429, null))).isTrue();
    }

    @Test
    void shouldStopAfterMaxAttemptsWaitingTheBackoffBetween() {
        FakeTime time = new FakeTime();
        RetryPolicy p = time.policy()
                .maxAttempts(4)
                .backoff(Backoff.exponential(Duration.ofMillis(10), 2, Duration.ofSeconds(1)))
                .build();
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> p.call(() -> {
                    calls.incrementAndGet();
                    throw status(409);
                }))
                .isInstanceOfSatisfying(RetryException.class, e -> {
                    assertThat(e.attempts()).isEqualTo(4);
                    assertThat(e.reason()).isEqualTo(StopReason.MAX_ATTEMPTS);
                    assertThat(e.getCause()).isInstanceOf(ElasticsearchException.class);
                    assertThat(e).hasMessageStartingWith("gave up after 4 attempt(s) (MAX_ATTEMPTS)");
                });
        assertThat(calls).hasValue(4);
        assertThat(time.slept).containsExactly(Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(40));
    }

    @Test
    void shouldReturnAsSoonAsAnAttemptSucceeds() {
        FakeTime time = new FakeTime();
        RetryPolicy p =
                time.policy().backoff(Backoff.fixed(Duration.ofMillis(7))).build();
        AtomicInteger calls = new AtomicInteger();
        String r = p.call(() -> {
            if (calls.incrementAndGet() < 3) {
                throw status(429);
            }
            return "ok";
        });
        assertThat(r).isEqualTo("ok");
        assertThat(time.slept).containsExactly(Duration.ofMillis(7), Duration.ofMillis(7));
    }

    @Test
    void shouldNotRetryFailuresThePredicateRejects() {
        FakeTime time = new FakeTime();
        RetryPolicy p = time.policy().retryOn(Failures.rejected()).build();
        assertThatThrownBy(() -> p.call(() -> {
                    throw status(409);
                }))
                .isInstanceOfSatisfying(RetryException.class, e -> {
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.reason()).isEqualTo(StopReason.NOT_RETRYABLE);
                });
        assertThat(time.slept).isEmpty();
    }

    @Test
    void shouldNotStartARetryThatWouldEndAfterTheDeadline() {
        FakeTime time = new FakeTime();
        RetryPolicy p = time.policy()
                .maxAttempts(1000)
                .backoff(Backoff.fixed(Duration.ofMillis(100)))
                .deadline(Duration.ofMillis(1000))
                .build();
        Attempts a = p.attempts();
        int retries = 0;
        while (a.retryAfter(status(409))) {
            retries++;
            time.nanos += Duration.ofMillis(30).toNanos(); // each attempt itself takes 30 ms
        }
        // Each round costs 130 ms; the 8th backoff would end at 7 × 130 + 100 = 1010 ms > 1000 ms.
        assertThat(retries).isEqualTo(7);
        assertThat(a.attempt()).isEqualTo(8);
        assertThat(a.stopReason()).isEqualTo(StopReason.DEADLINE);
        assertThat(a.elapsed()).isLessThanOrEqualTo(Duration.ofMillis(1000));
    }

    @Test
    void shouldRetryPastTheOldDeadlineOnceNoDeadlineRemovedIt() {
        FakeTime time = new FakeTime();
        RetryPolicy bounded = time.policy()
                .maxAttempts(20)
                .backoff(Backoff.fixed(Duration.ofMillis(100)))
                .deadline(Duration.ofMillis(1000))
                .build();
        RetryPolicy p = bounded.toBuilder().noDeadline().build();
        assertThat(p.deadline()).isNull();
        assertThat(p.toString()).contains("deadline=none");
        Attempts a = p.attempts();
        int retries = 0;
        while (a.retryAfter(status(409))) {
            retries++;
            time.nanos += Duration.ofMillis(30).toNanos();
        }
        // With the deadline, 7 retries (see above); without it, every attempt up to maxAttempts.
        assertThat(retries).isEqualTo(19);
        assertThat(a.stopReason()).isEqualTo(StopReason.MAX_ATTEMPTS);
        assertThat(a.elapsed()).isGreaterThan(Duration.ofMillis(1000));
        assertThat(bounded.deadline())
                .as("the policy it was built from keeps its deadline")
                .isEqualTo(Duration.ofMillis(1000));
    }

    @Test
    void shouldStopAndKeepTheInterruptFlagWhenInterruptedWhileWaiting() {
        RetryPolicy p = RetryPolicy.of(b -> b.sleeper(d -> {
            throw new InterruptedException();
        }));
        Attempts a = p.attempts();
        try {
            assertThat(a.retryAfter(status(409))).isFalse();
            assertThat(a.stopReason()).isEqualTo(StopReason.INTERRUPTED);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void shouldDecideWithoutWaitingForBulkRounds() {
        FakeTime time = new FakeTime();
        RetryPolicy p = time.policy()
                .maxAttempts(2)
                .backoff(Backoff.fixed(Duration.ofMillis(5)))
                .build();
        Attempts a = p.attempts();
        assertThat(a.onFailure(status(409))).contains(Duration.ofMillis(5));
        assertThat(a.attempt()).isEqualTo(2);
        assertThat(a.onFailure(status(409))).isEmpty();
        assertThat(a.stopReason()).isEqualTo(StopReason.MAX_ATTEMPTS);
        assertThat(time.slept).isEmpty();
    }

    @Test
    void shouldNeverRetryWithThePolicyNone() {
        assertThat(RetryPolicy.none().attempts().retryAfter(status(409))).isFalse();
    }

    @Test
    void shouldRejectInvalidSettingsNamingTheValue() {
        assertThatThrownBy(() -> RetryPolicy.of(b -> b.maxAttempts(0)))
                .hasMessage("maxAttempts must be at least 1, got 0");
        assertThatThrownBy(() -> RetryPolicy.of(b -> b.deadline(Duration.ZERO)))
                .hasMessage("deadline must be positive, got PT0S");
        assertThatThrownBy(() -> RetryPolicy.of(b -> b.backoff(null))).hasMessage("backoff cannot be null");
    }

    @Test
    void shouldCopyIntoABuilderAndDescribeItself() {
        RetryPolicy p = RetryPolicy.defaults().toBuilder()
                .maxAttempts(3)
                .deadline(Duration.ofSeconds(2))
                .build();
        assertThat(p.maxAttempts()).isEqualTo(3);
        assertThat(p.backoff()).isSameAs(RetryPolicy.DEFAULT_BACKOFF);
        assertThat(p)
                .hasToString(
                        "RetryPolicy{maxAttempts=3, backoff=exponential(5ms x2.0 up to 500ms) with jitter 0.5, deadline=PT2S}");
    }
}
