package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client-side lease without a cluster: renewal scheduling, and above all that release and
 * renewal never overlap and no renewal starts once a release has begun. Cadence and expiry run in
 * {@link VirtualTime}, so that they are checked to the millisecond; only the races run on real threads.
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
        final List<Duration> ttls = new CopyOnWriteArrayList<>();
        volatile CountDownLatch renewEntered;
        volatile CountDownLatch renewMayFinish;
        volatile boolean lose;
        volatile boolean fail;

        @Override
        public Lease.Renewal renew(Duration ttl) {
            calls.add("renew-start");
            renewals.incrementAndGet();
            ttls.add(ttl);
            CountDownLatch entered = renewEntered;
            if (entered != null) {
                entered.countDown();
                await(renewMayFinish);
            }
            calls.add("renew-end");
            if (fail) {
                throw new TreeLockException("cluster unreachable", 0, null);
            }
            return lose
                    ? Lease.Renewal.lost("gone")
                    : Lease.Renewal.ok(Instant.now().plus(ttl));
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

    /**
     * A clock and timer that stand still until the test moves them: the due tasks run on the thread that calls
     * {@link #advance}, each at its own time.
     */
    static final class VirtualTime implements Lease.Timer, LongSupplier {
        private record Task(long at, long seq, Runnable run, CompletableFuture<Void> handle) {}

        private final PriorityQueue<Task> tasks =
                new PriorityQueue<>(Comparator.comparingLong(Task::at).thenComparingLong(Task::seq));
        private volatile long now = TimeUnit.HOURS.toNanos(1);
        private long seq;

        @Override
        public synchronized Future<?> schedule(Runnable task, long delayNanos) {
            CompletableFuture<Void> handle = new CompletableFuture<>();
            tasks.add(new Task(now + delayNanos, seq++, task, handle));
            return handle;
        }

        @Override
        public long getAsLong() {
            return now;
        }

        /** Moves the clock on by {@code d}, running every task that falls due on the way. */
        void advance(Duration d) {
            long end = now + d.toNanos();
            while (true) {
                Task t;
                synchronized (this) {
                    t = tasks.peek();
                    if (t == null || t.at() > end) {
                        now = end;
                        return;
                    }
                    tasks.poll();
                    now = t.at();
                }
                if (!t.handle().isCancelled()) {
                    t.run().run();
                    t.handle().complete(null);
                }
            }
        }

        /** How long until the next task that is still to run; {@code null} when none is. */
        synchronized Duration nextDueIn() {
            return tasks.stream()
                    .filter(t -> !t.handle().isCancelled())
                    .map(t -> Duration.ofNanos(t.at() - now))
                    .min(Comparator.naturalOrder())
                    .orElse(null);
        }
    }

    private Lease lease(FakeOps ops, Duration ttl, VirtualTime time, boolean autoRenew, Recorder events) {
        Lease lease =
                new Lease(ops, ttl, time.getAsLong(), Instant.now().plus(ttl), autoRenew ? time : null, time, () -> {});
        lease.start(events);
        return lease;
    }

    private Lease lease(FakeOps ops, Duration ttl, boolean autoRenew, Recorder events) {
        Lease lease =
                new Lease(ops, ttl, System.nanoTime(), Instant.now().plus(ttl), autoRenew ? scheduler : null, () -> {});
        lease.start(events);
        return lease;
    }

    @Test
    void shouldWaitForARenewalInFlightBeforeReleasingAndNeverRenewAfter() throws Exception {
        FakeOps ops = new FakeOps();
        ops.renewEntered = new CountDownLatch(1);
        ops.renewMayFinish = new CountDownLatch(1);
        Recorder events = new Recorder();
        VirtualTime time = new VirtualTime();
        Lease lease = lease(ops, Duration.ofSeconds(3), time, true, events);

        var pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> renewal = pool.submit(() -> time.advance(Duration.ofSeconds(1))); // the background renewal
            assertThat(ops.renewEntered.await(30, TimeUnit.SECONDS)).isTrue(); // ... is in flight
            Future<Boolean> release = pool.submit(lease::release);
            Thread.sleep(200);
            assertThat(release).as("release waits for the renewal in flight").isNotDone();
            assertThat(ops.calls).containsExactly("renew-start");
            ops.renewEntered = null;
            ops.renewMayFinish.countDown();
            assertThat(release.get(10, TimeUnit.SECONDS)).isTrue();
            renewal.get(10, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(ops.calls).containsExactly("renew-start", "renew-end", "release");
        assertThat(events.events).containsExactly("renewed");
        time.advance(Duration.ofSeconds(30)); // ten renewal intervals
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
    void shouldRenewEveryThirdOfTheLease() {
        FakeOps ops = new FakeOps();
        Recorder events = new Recorder();
        VirtualTime time = new VirtualTime();
        Lease lease = lease(ops, Duration.ofMillis(1500), time, true, events);
        for (int renewal = 1; renewal <= 4; renewal++) {
            time.advance(Duration.ofMillis(499));
            assertThat(ops.renewals.get())
                    .as("renewals 1 ms before renewal %d is due", renewal)
                    .isEqualTo(renewal - 1);
            time.advance(Duration.ofMillis(1));
            assertThat(ops.renewals.get())
                    .as("renewals when renewal %d is due", renewal)
                    .isEqualTo(renewal);
            assertThat(time.nextDueIn())
                    .as("the next renewal a third of the lease later")
                    .isEqualTo(Duration.ofMillis(500));
        }
        assertThat(lease.isHeld()).isTrue();
        assertThat(events.events).containsExactly("renewed", "renewed", "renewed", "renewed");
        assertThat(lease.release()).isTrue();
        assertThat(time.nextDueIn()).as("no renewal after the release").isNull();
    }

    @Test
    void shouldRenewForANewLeaseThatLaterRenewalsKeep() {
        FakeOps ops = new FakeOps();
        List<Duration> asked = ops.ttls;
        VirtualTime time = new VirtualTime();
        Lease lease = lease(ops, Duration.ofMillis(1500), time, true, new Recorder());
        time.advance(Duration.ofMillis(100));
        assertThat(lease.renew(Duration.ofMillis(300))).isTrue();
        assertThat(lease.ttl()).isEqualTo(Duration.ofMillis(300));
        assertThat(time.nextDueIn())
                .as("background renewal at a third of the new lease")
                .isEqualTo(Duration.ofMillis(100));
        time.advance(Duration.ofMillis(100));
        assertThat(asked).containsExactly(Duration.ofMillis(300), Duration.ofMillis(300));
        assertThat(lease.renew(Duration.ofMillis(3000))).as("extended").isTrue();
        time.advance(Duration.ofMillis(2999));
        assertThat(lease.isHeld()).isTrue();
        assertThat(asked).startsWith(Duration.ofMillis(300), Duration.ofMillis(300), Duration.ofMillis(3000));
        assertThat(asked.subList(3, asked.size()))
                .as("background renewals keep the new lease")
                .containsOnly(Duration.ofMillis(3000));
    }

    @Test
    void shouldReportALossOnceAndCleanUpOnce() {
        FakeOps ops = new FakeOps();
        ops.lose = true;
        Recorder events = new Recorder();
        VirtualTime time = new VirtualTime();
        Lease lease = lease(ops, Duration.ofSeconds(2), time, true, events);
        time.advance(Duration.ofSeconds(1));
        assertThat(lease.state()).isEqualTo(Lease.State.LOST);
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.lostReason()).isEqualTo("gone");
        time.advance(Duration.ofSeconds(10));
        assertThat(events.events).containsExactly("lost: gone");
        assertThat(ops.calls).containsExactly("renew-start", "renew-end", "release"); // one renewal, one cleanup
        assertThat(lease.release()).isFalse();
        assertThat(ops.calls).hasSize(3);
    }

    @Test
    void shouldRetryFailedRenewalsAndReportTheLossAtTheDeadline() {
        FakeOps ops = new FakeOps();
        ops.fail = true;
        Recorder events = new Recorder();
        VirtualTime time = new VirtualTime();
        Lease lease = lease(ops, Duration.ofMillis(1500), time, true, events);
        time.advance(Duration.ofMillis(1499));
        // Renewals fail at 500 ms, then are retried every tenth of the lease: 650, 800, ..., 1400 ms.
        assertThat(events.events).hasSize(7).allMatch("failed"::equals);
        assertThat(lease.state()).isEqualTo(Lease.State.HELD);
        assertThat(lease.isHeld()).isTrue();
        time.advance(Duration.ofMillis(1));
        assertThat(lease.state()).as("lost at the deadline, not later").isEqualTo(Lease.State.LOST);
        assertThat(events.events)
                .last()
                .asString()
                .startsWith("lost: the lease expired")
                .contains("renewals failed");
        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void shouldExpireLocallyWithoutRenewalAndThrowManualRenewalFailures() {
        FakeOps ops = new FakeOps();
        Recorder events = new Recorder();
        VirtualTime time = new VirtualTime();
        Lease lease = lease(ops, Duration.ofSeconds(2), time, false, events);
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.renew()).isTrue();
        ops.fail = true;
        assertThatThrownBy(lease::renew).isInstanceOf(TreeLockException.class).hasMessageContaining("unreachable");
        assertThat(lease.isHeld()).as("a failed renewal is no verdict").isTrue();
        time.advance(Duration.ofMillis(1999));
        assertThat(lease.isHeld()).isTrue();
        time.advance(Duration.ofMillis(1));
        assertThat(lease.isHeld())
                .as("expired a lease after the renewal was sent")
                .isFalse();
        assertThat(ops.renewals.get()).isEqualTo(2); // nothing in the background
        assertThat(time.nextDueIn()).isNull();
        assertThat(lease.renew()).isFalse();
        assertThat(events.events)
                .containsExactly(
                        "renewed",
                        "lost: the lease expired at " + lease.expiresAt()
                                + " before it was renewed: renewals failed, last with cluster unreachable");
    }

    @Test
    void shouldSurviveEventsThatThrow() {
        FakeOps ops = new FakeOps();
        VirtualTime time = new VirtualTime();
        Lease lease = new Lease(ops, Duration.ofMillis(1500), time.getAsLong(), Instant.now(), time, time, () -> {});
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
        time.advance(Duration.ofMillis(1500));
        assertThat(ops.renewals.get()).isEqualTo(3);
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.release()).isTrue();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
