package io.github.esrel.lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client-side lease without a cluster: renewal scheduling, and above all that release and
 * renewal never overlap and no renewal starts once a release has begun.
 */
class LeaseTest {

    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** Ops that record the order of calls and can block or fail renewals. */
    static final class FakeOps implements Lease.Ops {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final AtomicInteger renewals = new AtomicInteger();
        volatile CountDownLatch renewEntered;
        volatile CountDownLatch renewMayFinish;
        volatile boolean lose;
        volatile boolean fail;

        @Override
        public Lease.Renewal renew(Duration ttl) {
            calls.add("renew-start");
            renewals.incrementAndGet();
            CountDownLatch entered = renewEntered;
            if (entered != null) {
                entered.countDown();
                await(renewMayFinish);
            }
            calls.add("renew-end");
            if (fail) {
                throw new TreeLockException("cluster unreachable", 0, null);
            }
            return lose ? Lease.Renewal.lost("gone") : Lease.Renewal.ok(Instant.now().plus(ttl));
        }

        @Override
        public boolean release() {
            calls.add("release");
            return true;
        }
    }

    static final class Recorder implements Lease.Events {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void renewed() {
            events.add("renewed");
        }

        @Override
        public void renewalFailed(TreeLockException e) {
            events.add("failed");
        }

        @Override
        public void lost(String reason) {
            events.add("lost: " + reason);
        }
    }

    private Lease lease(FakeOps ops, Duration ttl, boolean autoRenew, Recorder events) {
        Lease lease = new Lease(ops, ttl, System.nanoTime(), Instant.now().plus(ttl), autoRenew ? scheduler : null, () -> {});
        lease.start(events);
        return lease;
    }

    @Test
    void shouldWaitForARenewalInFlightBeforeReleasingAndNeverRenewAfter() throws Exception {
        FakeOps ops = new FakeOps();
        ops.renewEntered = new CountDownLatch(1);
        ops.renewMayFinish = new CountDownLatch(1);
        Recorder events = new Recorder();
        Lease lease = lease(ops, Duration.ofSeconds(3), true, events);

        assertThat(ops.renewEntered.await(30, TimeUnit.SECONDS)).isTrue(); // a background renewal is in flight
        var pool = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> release = pool.submit(lease::release);
            Thread.sleep(200);
            assertThat(release).as("release waits for the renewal in flight").isNotDone();
            assertThat(ops.calls).containsExactly("renew-start");
            ops.renewEntered = null;
            ops.renewMayFinish.countDown();
            assertThat(release.get(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            pool.shutdownNow();
        }
        assertThat(ops.calls).containsExactly("renew-start", "renew-end", "release");
        assertThat(events.events).containsExactly("renewed");
        Thread.sleep(2500); // more than a renewal interval
        assertThat(ops.calls).containsExactly("renew-start", "renew-end", "release");
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.release()).isFalse();
        assertThat(lease.renew()).isFalse();
        assertThat(ops.calls).hasSize(3);
    }

    @Test
    void shouldNeverStartARenewalAfterAReleaseBeganUnderRandomTiming() throws Exception {
        Random random = new Random(5);
        for (int round = 0; round < 200; round++) {
            FakeOps ops = new FakeOps();
            Lease lease = lease(ops, Duration.ofMillis(15), true, new Recorder()); // renews every 5 ms
            Thread.sleep(random.nextInt(20));
            lease.release();
            List<String> calls = List.copyOf(ops.calls);
            assertThat(calls).last().isEqualTo("release");
            assertThat(calls.stream().filter("release"::equals).count()).isEqualTo(1);
            Thread.sleep(random.nextInt(15));
            assertThat(ops.calls).as("round %d", round).isEqualTo(calls);
        }
    }

    @Test
    void shouldRenewEveryThirdOfTheLease() throws Exception {
        FakeOps ops = new FakeOps();
        Recorder events = new Recorder();
        Lease lease = lease(ops, Duration.ofMillis(1500), true, events);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (ops.renewals.get() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(ops.renewals.get()).isGreaterThanOrEqualTo(4);
        assertThat(lease.isHeld()).isTrue();
        assertThat(events.events).doesNotContain("failed").allMatch(e -> e.equals("renewed"));
        assertThat(lease.release()).isTrue();
    }

    @Test
    void shouldReportALossOnceAndCleanUpOnce() throws Exception {
        FakeOps ops = new FakeOps();
        ops.lose = true;
        Recorder events = new Recorder();
        Lease lease = lease(ops, Duration.ofSeconds(2), true, events);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (lease.state() != Lease.State.LOST && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.lostReason()).isEqualTo("gone");
        Thread.sleep(200);
        assertThat(events.events).containsExactly("lost: gone");
        assertThat(ops.calls).containsExactly("renew-start", "renew-end", "release"); // one renewal, one cleanup
        assertThat(lease.release()).isFalse();
        assertThat(ops.calls).hasSize(3);
    }

    @Test
    void shouldRetryFailedRenewalsAndReportTheLossAtTheDeadline() throws Exception {
        FakeOps ops = new FakeOps();
        ops.fail = true;
        Recorder events = new Recorder();
        Lease lease = lease(ops, Duration.ofMillis(1500), true, events);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (lease.state() != Lease.State.LOST && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(events.events.stream().filter("failed"::equals).count()).isGreaterThanOrEqualTo(2);
        assertThat(events.events).last().asString().startsWith("lost: the lease expired").contains("renewals failed");
        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void shouldExpireLocallyWithoutRenewalAndThrowManualRenewalFailures() throws Exception {
        FakeOps ops = new FakeOps();
        Recorder events = new Recorder();
        Lease lease = lease(ops, Duration.ofSeconds(2), false, events);
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.renew()).isTrue();
        ops.fail = true;
        assertThatThrownBy(lease::renew).isInstanceOf(TreeLockException.class).hasMessageContaining("unreachable");
        assertThat(lease.isHeld()).as("a failed renewal is no verdict").isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (lease.isHeld() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(lease.isHeld()).isFalse();
        assertThat(ops.renewals.get()).isEqualTo(2); // nothing in the background
        assertThat(lease.renew()).isFalse();
        assertThat(events.events).containsExactly("renewed", "lost: the lease expired at " + lease.expiresAt()
            + " before it was renewed: renewals failed, last with cluster unreachable");
    }

    @Test
    void shouldSurviveEventsThatThrow() throws Exception {
        FakeOps ops = new FakeOps();
        Lease lease = new Lease(ops, Duration.ofMillis(1500), System.nanoTime(), Instant.now(), scheduler, () -> {});
        lease.start(new Lease.Events() {
            @Override
            public void renewed() {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void renewalFailed(TreeLockException e) {}

            @Override
            public void lost(String reason) {}
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (ops.renewals.get() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(ops.renewals.get()).isGreaterThanOrEqualTo(3);
        assertThat(lease.isHeld()).isTrue();
        lease.release();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
