package io.github.esrel.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Clients;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.LossyProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The cases of Spring Integration's own registry tests (JDBC and Redis), on a real node, for one tree-lock backend:
 * two registries with two owners (as two processes) exclude each other, re-entry, the wrong thread unlocking, an
 * interrupted wait, a lease lost before unlock (also found by a re-entry), tryLock with a timeout, renewLock and
 * expireUnusedOlderThan.
 */
abstract class AbstractLockRegistryIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final List<TreeLocks> opened = new ArrayList<>();
    private String index;

    abstract TreeLocks.Backend backend();

    EsrelLockRegistry registry(String owner, Function<EsrelLockRegistry.Builder, EsrelLockRegistry.Builder> fn) {
        TreeLocks locks = TreeLocks.of(t -> t.client(cluster.client())
                .index(index)
                .owner(owner)
                .backend(backend())
                .waitBackoff(io.github.esrel.retry.Backoff.exponentialWithJitter(
                        Duration.ofMillis(10), 2.0, Duration.ofMillis(100))));
        opened.add(locks);
        return fn.apply(EsrelLockRegistry.builder().treeLocks(locks)).build();
    }

    EsrelLockRegistry registry(String owner) {
        return registry(owner, b -> b);
    }

    @org.junit.jupiter.api.BeforeEach
    void names(TestInfo info) throws java.io.IOException {
        index = ("si-" + backend() + "-" + info.getTestMethod().orElseThrow().getName()).toLowerCase(Locale.ROOT);
        if (!cluster.client().indices().exists(e -> e.index(index)).value()) {
            cluster.client().indices().create(c -> c.index(index));
        }
    }

    @AfterEach
    void close() {
        opened.forEach(TreeLocks::close);
    }

    /**
     * A registry whose client reaches the node through a proxy that loses the answer to the first write of each lock
     * and each unlock (the node did the work, the client sent it again): the lock is held, once, and the unlock is
     * quiet (no {@link ConcurrentModificationException} for a lease that was held) and frees it.
     */
    @Test
    void lockAndUnlockWhoseAnswersAreLostTellTheTruth() throws Exception {
        try (LossyProxy proxy = LossyProxy.to(cluster.httpUri())) {
            ElasticsearchClient lossy = Clients.connect(List.of(proxy.uri()), cluster.requestHeaders());
            try {
                TreeLocks locks = TreeLocks.builder()
                        .client(lossy)
                        .index(index)
                        .owner("node-1")
                        .backend(backend())
                        .build();
                opened.add(locks);
                EsrelLock lock =
                        EsrelLockRegistry.builder().treeLocks(locks).build().obtain("orders");
                EsrelLock other = registry("node-2").obtain("orders");
                for (int i = 0; i < 3; i++) {
                    proxy.dropAnswerToNext(LossyProxy.WRITES);
                    lock.lock();
                    assertThat(lock.isHeld()).isTrue();
                    assertThat(other.tryLock()).as("held once").isFalse();
                    proxy.dropAnswerToNext(LossyProxy.WRITES);
                    lock.unlock();
                    assertThat(other.tryLock()).as("free").isTrue();
                    other.unlock();
                }
                assertThat(proxy.answersDropped()).isEqualTo(6);
            } finally {
                lossy._transport().close();
            }
        }
    }

    @Test
    void twoRegistriesExcludeEachOther() throws Exception {
        EsrelLockRegistry one = registry("node-1");
        EsrelLockRegistry two = registry("node-2");
        EsrelLock a = one.obtain("orders");
        EsrelLock b = two.obtain("orders");
        assertThat(one.obtain("orders")).isSameAs(a);
        a.lock();
        long first = a.token();
        assertThat(a.isHeld()).isTrue();
        assertThat(b.tryLock()).isFalse();
        assertThat(CompletableFuture.supplyAsync(b::tryLock).get()).isFalse();
        a.unlock();
        assertThat(b.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(b.token()).isGreaterThan(first);
        assertThat(a.tryLock()).isFalse();
        b.unlock();
        assertThat(a.tryLock()).isTrue();
        a.unlock();
    }

    @Test
    void reentrant() throws Exception {
        EsrelLockRegistry one = registry("node-1");
        EsrelLockRegistry two = registry("node-2");
        EsrelLock a = one.obtain("job");
        a.lock();
        long token = a.token();
        a.lock();
        assertThat(a.tryLock()).isTrue();
        assertThat(a.token()).isEqualTo(token);
        a.unlock();
        a.unlock();
        assertThat(two.obtain("job").tryLock()).isFalse();
        a.unlock();
        assertThat(two.obtain("job").tryLock()).isTrue();
        two.obtain("job").unlock();
    }

    @Test
    void twoThreadsWrongOneUnlocks() throws Exception {
        EsrelLock a = registry("node-1").obtain("foo");
        a.lockInterruptibly();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                a.unlock();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        t.join(10_000);
        assertThat(thrown.get()).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(a.isHeld()).isTrue();
        a.unlock();
        assertThatThrownBy(a::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void twoThreadsOfOneRegistryExclude() throws Exception {
        EsrelLock a = registry("node-1").obtain("foo");
        a.lock();
        assertThat(CompletableFuture.supplyAsync(a::tryLock).get()).isFalse();
        a.unlock();
        assertThat(CompletableFuture.supplyAsync(() -> {
                            boolean got = a.tryLock();
                            a.unlock();
                            return got;
                        })
                        .get())
                .isTrue();
    }

    @Test
    void waitIsInterruptible() throws Exception {
        EsrelLock a = registry("node-1").obtain("busy");
        EsrelLock b = registry("node-2").obtain("busy");
        a.lock();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                b.lockInterruptibly();
                b.unlock();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        Thread.sleep(500);
        assertThat(t.isAlive()).isTrue();
        long start = System.nanoTime();
        t.interrupt();
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(a.isHeld()).isTrue();
        a.unlock();
    }

    @Test
    void leaseLostBeforeUnlock() throws Exception {
        EsrelLock a = registry("node-1", b -> b.autoRenew(false).ttl(Duration.ofMillis(500)))
                .obtain("expiring");
        EsrelLock b = registry("node-2").obtain("expiring");
        a.lock();
        assertThat(b.tryLock(10, TimeUnit.SECONDS)).isTrue();
        assertThat(a.isHeld()).isFalse();
        assertThatThrownBy(a::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(a::unlock).isInstanceOf(IllegalMonitorStateException.class);
        b.unlock();
    }

    @Test
    void aReentryThatFindsTheLeaseLostEndsTheHolds() throws Exception {
        EsrelLockRegistry one = registry("node-1", b -> b.autoRenew(false).ttl(Duration.ofMillis(500)));
        EsrelLock a = one.obtain("reentered");
        EsrelLock b = registry("node-2").obtain("reentered");
        a.lock();
        a.lock();
        assertThat(b.tryLock(10, TimeUnit.SECONDS)).isTrue();
        assertThat(a.tryLock()).as("the re-entry, lease lost").isFalse();
        b.unlock();
        // No longer held by this thread (as Spring's leader initiator takes a false heartbeat): another takes it.
        assertThat(CompletableFuture.supplyAsync(() -> {
                            boolean got = a.tryLock();
                            a.unlock();
                            return got;
                        })
                        .get())
                .isTrue();
        a.unlock();
        assertThatThrownBy(a::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(a::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void tryLockWithTimeout() throws Exception {
        EsrelLock a = registry("node-1").obtain("timed");
        EsrelLock b = registry("node-2").obtain("timed");
        a.lock();
        long start = System.nanoTime();
        assertThat(b.tryLock(400, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                boolean got = b.tryLock(Duration.ofSeconds(10), Duration.ofSeconds(30));
                b.unlock();
                return got;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);
        a.unlock();
        assertThat(waiter.get(15, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void renewLock() throws Exception {
        EsrelLockRegistry one = registry("node-1", b -> b.autoRenew(false).ttl(Duration.ofMillis(800)));
        EsrelLock b = registry("node-2").obtain("renewed");
        assertThatThrownBy(() -> one.renewLock("renewed")).isInstanceOf(IllegalStateException.class);
        EsrelLock a = one.obtain("renewed");
        a.lock();
        one.renewLock("renewed", Duration.ofSeconds(30));
        Thread.sleep(1200);
        assertThat(a.isHeld()).isTrue();
        assertThat(b.tryLock()).isFalse();
        one.renewLock("renewed");
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> one.renewLock("renewed"));
        assertThatThrownBy(other::get)
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalMonitorStateException.class);
        a.unlock();
        assertThat(b.tryLock()).isTrue();
        b.unlock();
    }

    @Test
    void keysWithSlashesDoNotNest() throws Exception {
        EsrelLockRegistry one = registry("node-1");
        EsrelLockRegistry two = registry("node-2");
        assertThat(one.pathOf("a/b").segments())
                .hasSize(one.pathOf("a").segments().size());
        assertThat(one.pathOf("a/b")).isNotEqualTo(one.pathOf("a%2Fb"));
        assertThat(one.pathOf("..").name()).isEqualTo("%2E%2E");
        // esrel's one mapping of names to paths, the one ShedLock's provider uses too, and reversible
        io.github.esrel.path.PathNames names = io.github.esrel.path.PathNames.under(EsrelLockRegistry.DEFAULT_PREFIX);
        for (Object key : java.util.List.<Object>of("order.1", "a/b", "", "é", 42, "lone\ud800")) {
            assertThat(one.pathOf(key)).isEqualTo(names.path(key.toString()));
            assertThat(one.keyOf(one.pathOf(key))).contains(key.toString());
        }
        EsrelLock parent = one.obtain("a");
        EsrelLock child = two.obtain("a/b");
        parent.lock();
        assertThat(child.tryLock()).isTrue();
        child.unlock();
        parent.unlock();
    }

    @Test
    void expireUnusedOlderThan() throws Exception {
        EsrelLockRegistry one = registry("node-1");
        EsrelLock held = one.obtain("held");
        EsrelLock idle = one.obtain("idle");
        held.lock();
        idle.lock();
        idle.unlock();
        Thread.sleep(50);
        one.expireUnusedOlderThan(10_000);
        assertThat(one.obtain("idle")).isSameAs(idle);
        one.expireUnusedOlderThan(10);
        assertThat(one.obtain("held")).isSameAs(held);
        assertThat(one.obtain("idle")).isNotSameAs(idle);
        held.unlock();
    }

    @Test
    void newConditionIsUnsupported() {
        EsrelLock a = registry("node-1").obtain("c");
        assertThatThrownBy(a::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }
}
