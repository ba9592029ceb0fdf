package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.path.TreePath;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The wait loop's handling of grants whose answer came after their lease had ended: an auto-renewed one is given
 * back, a fixed term is handed out as granted.
 */
class EngineTest {

    private static final Duration LEASE = Duration.ofMillis(200);

    private final Engine engine = new Engine(TreeLocks.builder().index("fs").ttl(LEASE));

    @AfterEach
    void close() {
        engine.close();
    }

    /** Grants every attempt, each answer delayed by the next of {@code delays} (the last one repeats). */
    private static final class SlowStore implements LockStore {
        final Deque<Duration> delays;
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger released = new AtomicInteger();

        SlowStore(Duration... delays) {
            this.delays = new ArrayDeque<>(List.of(delays));
        }

        @Override
        public Attempt tryAcquire(TreePath path, LockMode mode, String owner, Duration ttl, Duration serverWait) {
            long token = attempts.incrementAndGet();
            Duration delay = delays.size() > 1 ? delays.poll() : delays.peek();
            try {
                Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Lease.Ops ops = new Lease.Ops() {
                @Override
                public Lease.Renewal renew(Duration t) {
                    return Lease.Renewal.ok(Instant.now().plus(t));
                }

                @Override
                public boolean release() {
                    released.incrementAndGet();
                    return true;
                }
            };
            return Attempt.granted(new Grant(token, Instant.now().plus(ttl), ops));
        }

        @Override
        public boolean waitsOnServer() {
            return false;
        }

        @Override
        public List<LockInfo> list(TreePath prefix) {
            return List.of();
        }
    }

    /** Answers each attempt with the next of {@code outcomes}: {@code ""} grants, anything else is why it was lost. */
    private static final class LossyStore implements LockStore {
        final Deque<String> outcomes;
        final AtomicInteger attempts = new AtomicInteger();

        LossyStore(String... outcomes) {
            this.outcomes = new ArrayDeque<>(java.util.Arrays.asList(outcomes));
        }

        @Override
        public Attempt tryAcquire(TreePath path, LockMode mode, String owner, Duration ttl, Duration serverWait) {
            long token = attempts.incrementAndGet();
            String lost = outcomes.size() > 1 ? outcomes.poll() : outcomes.peek();
            if (!lost.isEmpty()) {
                return Attempt.lost(lost);
            }
            Lease.Ops ops = new Lease.Ops() {
                @Override
                public Lease.Renewal renew(Duration t) {
                    return Lease.Renewal.ok(Instant.now().plus(t));
                }

                @Override
                public boolean release() {
                    return true;
                }
            };
            return Attempt.granted(new Grant(token, Instant.now().plus(ttl), ops));
        }

        @Override
        public boolean waitsOnServer() {
            return true;
        }

        @Override
        public List<LockInfo> list(TreePath prefix) {
            return List.of();
        }
    }

    @Test
    void shouldAskAgainWithinTheWaitWhenTheAnswersToAnAttemptWereLost() {
        LossyStore store = new LossyStore("no answer; released by its grant id", "");
        TreeLock lock = engine.acquire(store, request(Duration.ofSeconds(30))).orThrow();
        assertThat(lock.token()).isEqualTo(2);
        assertThat(lock.release()).isTrue();
    }

    @Test
    void shouldSayWhyNothingWasGrantedWhenTheAnswersWereLostAndTheWaitIsOver() {
        LossyStore store = new LossyStore("no answer to 5 sends; released by its grant id");
        assertThatThrownBy(() -> engine.acquire(store, request(Duration.ZERO)))
                .isInstanceOfSatisfying(TreeLockException.class, e -> {
                    assertThat(e.status()).isEqualTo(TreeLockException.UNAVAILABLE);
                    assertThat(e.getMessage()).contains("no answer to 5 sends; released by its grant id");
                    assertThat(e.conflicts()).isEmpty();
                });
        assertThat(store.attempts).hasValue(1);
    }

    /** An auto-renewed lock (the default). */
    private static LockRequest request(Duration maxWait) {
        return LockRequest.of(b -> b.path("/a/b").maxWait(maxWait));
    }

    @Test
    void shouldHandOutATimelyGrant() {
        SlowStore store = new SlowStore(Duration.ZERO);
        TreeLock lock = engine.acquire(store, request(Duration.ZERO)).orThrow();
        assertThat(lock.isHeld()).isTrue();
        assertThat(store.released).hasValue(0);
        assertThat(lock.release()).isTrue();
    }

    @Test
    void shouldGiveBackAGrantThatCameAfterItsLeaseAndSayWhyWhenTheWaitIsOver() {
        SlowStore store = new SlowStore(LEASE.plusMillis(100));
        assertThatThrownBy(() -> engine.acquire(store, request(Duration.ZERO)))
                .isInstanceOfSatisfying(TreeLockException.class, e -> {
                    assertThat(e.retryable()).isTrue();
                    assertThat(e.getMessage())
                            .contains("was granted, but the answer took")
                            .contains("longer than the lease of 200 ms");
                });
        assertThat(store.attempts).hasValue(1);
        assertThat(store.released).hasValue(1);
    }

    @Test
    void shouldAskAgainWithinTheWaitAfterAGrantThatCameTooLate() {
        SlowStore store = new SlowStore(LEASE.plusMillis(100), Duration.ZERO);
        TreeLock lock = engine.acquire(store, request(Duration.ofSeconds(30))).orThrow();
        assertThat(lock.isHeld()).isTrue();
        assertThat(lock.token()).isEqualTo(2);
        assertThat(store.released).hasValue(1);
        assertThat(lock.release()).isTrue();
        assertThat(store.released).hasValue(2);
    }

    @Test
    void shouldHandOutAGrantWithoutRenewalAsGrantedEvenWhenItsTermEndedOnTheWay() {
        SlowStore store = new SlowStore(LEASE.plusMillis(100));
        TreeLock lock = engine.acquire(store, LockRequest.of(b -> b.path("/a/b").autoRenew(false)))
                .orThrow();
        assertThat(lock.token()).isEqualTo(1);
        assertThat(lock.isHeld()).isFalse();
        assertThat(store.released).hasValue(0);
        assertThat(lock.release()).isFalse();
        assertThat(store.released).hasValue(1);
    }
}
