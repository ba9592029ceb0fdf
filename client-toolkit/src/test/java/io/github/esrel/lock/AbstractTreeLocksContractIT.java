package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import io.github.esrel.TestTags;
import io.github.esrel.path.TreePath;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link TreeLocks}, run against every implementation (ShedLock's
 * {@code AbstractLockProviderIntegrationTest} is the model): every rule of the semantics, leases,
 * renewal, release, fencing tokens, waiting, listeners, and safety under contention.
 *
 * <p>Timings here are noisy (other nodes run on the same two cores): nothing asserts a duration;
 * leases are short and every wait is a state-based poll with a generous timeout.
 */
abstract class AbstractTreeLocksContractIT {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final List<TreeLocks> providers = new ArrayList<>();

    /** The cluster's client. */
    protected abstract ElasticsearchClient client();

    /** The implementation under test. */
    protected abstract TreeLocks.Backend backend();

    /**
     * Makes the server forget {@code lock} behind its handle's back (as if its lease had expired and
     * been taken over), so that its next renewal finds it gone.
     */
    protected abstract void revoke(TreeLock lock) throws IOException;

    /**
     * Acquisitions per thread of the contention test (8 threads).
     *
     * @return 200 unless a provider says otherwise
     */
    protected int contentionOpsPerThread() {
        return 200;
    }

    /** A fresh namespace: an existing index (the plugin resolves it), unique per call. */
    protected String namespace() {
        String name =
                "locks-" + backend().name().toLowerCase(java.util.Locale.ROOT) + "-" + NAMESPACES.incrementAndGet();
        try {
            client().indices()
                    .create(c ->
                            c.index(name).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        } catch (ElasticsearchException | IOException e) {
            throw new IllegalStateException(e);
        }
        return name;
    }

    protected TreeLocks locks(String namespace) {
        return locks(namespace, b -> b);
    }

    protected TreeLocks locks(String namespace, Function<TreeLocks.Builder, TreeLocks.Builder> fn) {
        TreeLocks locks = fn.apply(
                        TreeLocks.builder().client(client()).index(namespace).backend(backend()))
                .build();
        synchronized (providers) {
            providers.add(locks);
        }
        return locks;
    }

    @AfterEach
    void closeProviders() {
        synchronized (providers) {
            providers.forEach(TreeLocks::close);
            providers.clear();
        }
    }

    // ---- the path contract: one set of limits for every provider ----------------------------------------

    /**
     * Paths exactly at the limits of {@link TreePath} ({@value TreePath#MAX_BYTES} UTF-8 bytes, {@value
     * TreePath#MAX_DEPTH} segments) are locked, listed and released by every provider.
     */
    @Test
    void shouldLockPathsAtTheLimitsOfThePathContract() {
        String ns = namespace();
        TreeLocks locks = locks(ns);
        Map<String, String> accepted = io.github.esrel.path.LimitPaths.accepted();
        // All held at once (distinct leaves, shared ancestors) and listed once: a listing refreshes the fallback's
        // lock index, and a 100-segment path costs that provider 101 documents a step.
        List<TreeLock> held = new ArrayList<>();
        accepted.forEach((what, path) -> {
            TreeLock lock = locks.acquire(path, LockMode.EXCLUSIVE).orThrow();
            held.add(lock);
            assertThat(lock.path().value()).as(what).isEqualTo(path);
        });
        assertThat(locks.list())
                .extracting(l -> l.path().value())
                .containsExactlyInAnyOrderElementsOf(accepted.values());
        for (TreeLock lock : held) {
            assertThat(lock.release()).as(lock.path().value()).isTrue();
        }
        assertThat(locks.list()).isEmpty();
    }

    /**
     * Paths one past a limit, and the four on which the providers once disagreed (the plugin refused them, the
     * fallback locked them), are refused by every provider in the same way, before any request: nothing is locked.
     */
    @Test
    void shouldRefusePathsPastTheLimitsBeforeAnyRequest() {
        String ns = namespace();
        TreeLocks locks = locks(ns);
        io.github.esrel.path.LimitPaths.refused()
                .forEach((what, path) -> assertThatThrownBy(() -> locks.acquire(path, LockMode.SHARED))
                        .as(what)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("the limit of both lock providers"));
        assertThat(locks.list()).isEmpty();
    }

    // ---- grants -------------------------------------------------------------------------------------

    /**
     * A lock whose lease was lost while its holder worked cannot go unnoticed in try-with-resources: close()
     * releases and then throws LeaseLostException. Closing a lock that was held to the end, or one released
     * explicitly (the caller saw that result), is quiet.
     */
    @Test
    void shouldThrowFromCloseWhenTheLeaseWasLostBeforeTheRelease() throws IOException {
        String ns = namespace();
        TreeLocks locks = locks(ns);
        assertThatThrownBy(() -> {
                    try (TreeLock lock =
                            locks.acquire("/work", LockMode.EXCLUSIVE).orThrow()) {
                        revoke(lock); // its lease ran out and another process took the path over, say
                    }
                })
                .isInstanceOfSatisfying(LeaseLostException.class, e -> {
                    assertThat(e.lock().path().value()).isEqualTo("/work");
                    assertThat(e.getMessage()).contains("lost before it was released");
                });
        assertThat(locks.list(TreePath.of("/"))).as("nothing left held").isEmpty();

        TreeLock revokedThenReleased =
                locks.acquire("/other", LockMode.EXCLUSIVE).orThrow();
        revoke(revokedThenReleased);
        assertThat(revokedThenReleased.release()).isFalse();
        revokedThenReleased.close(); // the caller has seen the loss: quiet

        try (TreeLock fine = locks.acquire("/fine", LockMode.SHARED).orThrow()) {
            assertThat(fine.isHeld()).isTrue();
        }
    }

    /**
     * A namespace is an existing index with either provider: acquire and list in a namespace without an index
     * fail with 404, and a lock whose namespace index is deleted is lost (its renewal reports the loss, its
     * release returns false).
     */
    @Test
    void shouldTreatANamespaceWithoutAnIndexAlikeWithEitherProvider() throws IOException {
        String missing = "locks-missing-" + backend().name().toLowerCase(java.util.Locale.ROOT) + "-"
                + NAMESPACES.incrementAndGet();
        TreeLocks nowhere = locks(missing);
        assertThatThrownBy(() -> nowhere.acquire("/a", LockMode.SHARED))
                .isInstanceOfSatisfying(TreeLockException.class, e -> {
                    assertThat(e.status()).isEqualTo(404);
                    assertThat(e.getMessage()).contains(missing);
                });
        assertThatThrownBy(() -> nowhere.list(TreePath.of("/")))
                .isInstanceOfSatisfying(
                        TreeLockException.class, e -> assertThat(e.status()).isEqualTo(404));

        String ns = namespace();
        TreeLocks locks = locks(ns);
        TreeLock held = locks.acquire("/b", LockMode.EXCLUSIVE).orThrow();
        client().indices().delete(d -> d.index(ns));
        assertThat(held.renew())
                .as("a renewal after the namespace index is gone")
                .isFalse();
        assertThat(held.isHeld()).isFalse();
        assertThat(held.release())
                .as("a release after the namespace index is gone")
                .isFalse();
    }

    @Test
    void shouldGrantAnExclusiveLockWithTokenLeaseAndOwner() {
        String ns = namespace();
        TreeLocks locks = locks(ns, b -> b.owner("worker-7").ttl(Duration.ofSeconds(30)));
        assertThat(locks.backend()).isEqualTo(backend());
        assertThat(locks.index()).isEqualTo(ns);
        Instant before = Instant.now();

        AcquireResult<TreeLock> r = locks.acquire(LockRequest.exclusive("/a/b/c.txt"));

        assertThat(r.acquired()).isTrue();
        assertThat(r.conflicts()).isEmpty();
        TreeLock lock = r.orThrow();
        assertThat(lock.index()).isEqualTo(ns);
        assertThat(lock.path()).isEqualTo(TreePath.of("/a/b/c.txt"));
        assertThat(lock.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(lock.owner()).isEqualTo("worker-7");
        assertThat(lock.token()).isPositive();
        assertThat(lock.ttl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(lock.expiresAt()).isAfter(before.plusSeconds(20)).isBefore(before.plusSeconds(120));
        assertThat(lock.isHeld()).isTrue();
        assertThat(lock.toString()).contains("/a/b/c.txt", "exclusive", "worker-7", "held");

        assertThat(lock.release()).isTrue();
        assertThat(lock.isHeld()).isFalse();
        assertThat(lock.release()).isFalse();
        lock.close(); // idempotent
        assertThat(locks.list()).isEmpty();
        assertThat(locks.acquire("/a/b/c.txt", LockMode.EXCLUSIVE).acquired()).isTrue();
    }

    @Test
    void shouldShareSharedLocksBetweenOwners() {
        String ns = namespace();
        TreeLocks one = locks(ns, b -> b.owner("one"));
        TreeLocks two = locks(ns, b -> b.owner("two"));
        TreeLock a = one.acquire("/docs/report.txt", LockMode.SHARED).orThrow();
        TreeLock b = two.acquire("/docs/report.txt", LockMode.SHARED).orThrow();
        TreeLock c = one.acquire("/docs/report.txt", LockMode.SHARED).orThrow(); // and again by the same owner
        assertThat(List.of(a.token(), b.token(), c.token())).doesNotHaveDuplicates();
        assertThat(b.token()).isGreaterThan(a.token());
        assertThat(c.token()).isGreaterThan(b.token());
    }

    @Test
    void shouldRefuseConflictingLocksOnTheSamePathAndNameTheHolder() {
        String ns = namespace();
        TreeLocks reader = locks(ns, b -> b.owner("reader"));
        TreeLocks writer = locks(ns, b -> b.owner("writer"));

        TreeLock shared = reader.acquire("/f.txt", LockMode.SHARED).orThrow();
        AcquireResult<TreeLock> x = writer.acquire("/f.txt", LockMode.EXCLUSIVE);
        assertThat(x.acquired()).isFalse();
        assertThat(x.lock()).isEmpty();
        assertThat(x.conflicts()).singleElement().satisfies(c -> {
            assertThat(c.owner()).isEqualTo("reader");
            assertThat(c.mode()).isEqualTo(LockMode.SHARED);
            assertThat(c.path()).isEqualTo("/f.txt");
            assertThat(c.expiresAt()).isAfter(Instant.now().minusSeconds(5));
        });
        assertThatThrownBy(x::orThrow).isInstanceOfSatisfying(TreeLockException.class, e -> {
            assertThat(e.status()).isEqualTo(409);
            assertThat(e.conflicts()).hasSize(1);
            assertThat(e.getMessage()).contains("/f.txt", "reader");
        });
        shared.close();

        TreeLock exclusive = writer.acquire("/f.txt", LockMode.EXCLUSIVE).orThrow();
        assertThat(reader.acquire("/f.txt", LockMode.SHARED).acquired()).isFalse();
        assertThat(reader.acquire("/f.txt", LockMode.EXCLUSIVE).conflicts())
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.owner()).isEqualTo("writer");
                    assertThat(c.mode()).isEqualTo(LockMode.EXCLUSIVE);
                });
        exclusive.close();
        assertThat(reader.acquire("/f.txt", LockMode.SHARED).acquired()).isTrue();
    }

    @Test
    void shouldNotBeReentrant() {
        TreeLocks locks = locks(namespace(), b -> b.owner("same"));
        TreeLock first = locks.acquire("/a", LockMode.EXCLUSIVE).orThrow();
        AcquireResult<TreeLock> again = locks.acquire("/a", LockMode.EXCLUSIVE);
        assertThat(again.acquired()).isFalse();
        assertThat(again.conflicts()).extracting(LockConflict::owner).containsExactly("same");
        assertThat(locks.acquire("/a/b", LockMode.SHARED).acquired()).isFalse();
        first.close();
    }

    @Test
    void shouldRejectExclusiveLockOnDirectoryWhenFileBelowIsLocked() {
        String ns = namespace();
        TreeLocks holder = locks(ns, b -> b.owner("holder"));
        TreeLocks other = locks(ns, b -> b.owner("other"));
        TreeLock file = holder.acquire("/a/b/c.txt", LockMode.EXCLUSIVE).orThrow();

        for (String dir : List.of("/a", "/a/b")) {
            AcquireResult<TreeLock> r = other.acquire(dir, LockMode.EXCLUSIVE);
            assertThat(r.acquired()).as("exclusive on %s", dir).isFalse();
            assertThat(r.conflicts()).as("conflicts on %s", dir).isNotEmpty().allSatisfy(c -> {
                assertThat(c.owner()).isEqualTo("holder");
                assertThat(TreePath.of(c.path()).onSameBranch(TreePath.of(dir))).isTrue();
            });
        }
        // Shared locks on the directories are compatible with the shared locks the file's grant holds there.
        other.acquire("/a", LockMode.SHARED).orThrow().close();
        other.acquire("/a/b", LockMode.SHARED).orThrow().close();
        // Siblings and other branches are free.
        other.acquire("/a/b/d.txt", LockMode.EXCLUSIVE).orThrow().close();
        other.acquire("/a/x", LockMode.EXCLUSIVE).orThrow().close();
        other.acquire("/b", LockMode.EXCLUSIVE).orThrow().close();
        // A lock below the file (paths are paths: a file may be a directory too) is refused.
        assertThat(other.acquire("/a/b/c.txt/d", LockMode.SHARED).acquired()).isFalse();

        file.close();
        other.acquire("/a", LockMode.EXCLUSIVE).orThrow().close();
    }

    @Test
    void shouldRefuseLocksBelowAnExclusivelyLockedDirectory() {
        String ns = namespace();
        TreeLocks holder = locks(ns, b -> b.owner("renamer"));
        TreeLocks other = locks(ns, b -> b.owner("other"));
        TreeLock dir = holder.acquire("/clinton", LockMode.EXCLUSIVE).orThrow();

        for (String below : List.of("/clinton/projects", "/clinton/projects/elasticsearch/README.txt")) {
            for (LockMode mode : LockMode.values()) {
                AcquireResult<TreeLock> r = other.acquire(below, mode);
                assertThat(r.acquired()).as("%s on %s", mode, below).isFalse();
                assertThat(r.conflicts()).singleElement().satisfies(c -> {
                    assertThat(c.path()).isEqualTo("/clinton");
                    assertThat(c.mode()).isEqualTo(LockMode.EXCLUSIVE);
                    assertThat(c.owner()).isEqualTo("renamer");
                });
            }
        }
        assertThat(other.acquire("/clinton", LockMode.SHARED).acquired()).isFalse();
        // The root is only held shared by the directory's grant.
        other.acquire("/", LockMode.SHARED).orThrow().close();
        other.acquire("/clintonx", LockMode.EXCLUSIVE).orThrow().close();
        assertThat(other.acquire("/", LockMode.EXCLUSIVE).acquired()).isFalse();
        dir.close();
        other.acquire("/clinton/projects", LockMode.EXCLUSIVE).orThrow().close();
    }

    @Test
    void shouldTreatExclusiveRootAsTheGlobalLock() {
        String ns = namespace();
        TreeLocks one = locks(ns, b -> b.owner("global"));
        TreeLocks two = locks(ns, b -> b.owner("other"));

        TreeLock global = one.acquire(LockRequest.global()).orThrow();
        assertThat(global.path().isRoot()).isTrue();
        for (String p : List.of("/", "/a", "/a/b/c")) {
            for (LockMode m : LockMode.values()) {
                assertThat(two.acquire(p, m).acquired()).as("%s on %s", m, p).isFalse();
            }
        }
        global.close();

        TreeLock deep = two.acquire("/x/y/z", LockMode.SHARED).orThrow();
        AcquireResult<TreeLock> refused = one.acquire(LockRequest.global());
        assertThat(refused.acquired()).isFalse();
        assertThat(refused.conflicts()).extracting(LockConflict::owner).contains("other");
        deep.close();
        one.acquire(LockRequest.global()).orThrow().close();
    }

    @Test
    void shouldKeepNamespacesApart() {
        TreeLocks fs = locks(namespace());
        TreeLocks photos = locks(namespace());
        TreeLock a = fs.acquire(LockRequest.global()).orThrow();
        TreeLock b = photos.acquire(LockRequest.global()).orThrow();
        assertThat(photos.list()).extracting(LockInfo::path).containsExactly(TreePath.ROOT);
        assertThat(fs.list())
                .singleElement()
                .satisfies(l -> assertThat(l.holders())
                        .singleElement()
                        .satisfies(h -> assertThat(h.token()).isEqualTo(a.token())));
        b.close();
        a.close();
    }

    // ---- leases -------------------------------------------------------------------------------------

    @Test
    void shouldFreeADeadHoldersPathAndAncestorsAfterTheLease() {
        String ns = namespace();
        TreeLocks dead = locks(ns, b -> b.owner("dead"));
        TreeLocks alive = locks(ns, b -> b.owner("alive"));
        // A holder that never renews and never releases: a crashed process.
        TreeLock orphan = dead.acquire(LockRequest.of(
                        b -> b.path("/d/e/f.txt").ttl(Duration.ofMillis(1500)).autoRenew(false)))
                .orThrow();
        assertThat(alive.acquire("/d", LockMode.EXCLUSIVE).acquired()).isFalse();

        await("the dead holder's lease ends", () -> !orphan.isHeld());
        // The ancestors are free, not only the file, without any cleanup by the holder.
        TreeLock dir = alive.acquire(LockRequest.of(b -> b.path("/d").maxWait(PATIENCE)))
                .orThrow();
        dir.close();
        TreeLock file = alive.acquire("/d/e/f.txt", LockMode.EXCLUSIVE).orThrow();
        assertThat(file.token()).isGreaterThan(orphan.token());
        assertThat(alive.list()).extracting(LockInfo::path).containsExactly(TreePath.of("/d/e/f.txt"));

        // The stale handle cannot release what is now someone else's.
        assertThat(orphan.release()).isFalse();
        assertThat(alive.list())
                .singleElement()
                .satisfies(l -> assertThat(l.holders())
                        .singleElement()
                        .satisfies(h -> assertThat(h.owner()).isEqualTo("alive")));
        assertThat(dead.acquire("/d/e/f.txt", LockMode.SHARED).acquired()).isFalse();
        file.close();
    }

    @Test
    void shouldRenewInTheBackgroundSoTheLockOutlivesItsLease() {
        String ns = namespace();
        AtomicInteger renewals = new AtomicInteger();
        TreeLocks locks = locks(
                ns,
                b -> b.listener(new TreeLockListener() {
                    @Override
                    public void onRenewed(TreeLock lock) {
                        renewals.incrementAndGet();
                    }
                }));
        TreeLocks other = locks(ns);
        // A lease of 3 s, renewed every second: a renewal may come up to 2 s late on a loaded machine without the lease
        // ending (with 1 s, the renewals stopped there before the sixth).
        TreeLock lock = locks.acquire(LockRequest.of(b -> b.path("/long/job").ttl(Duration.ofSeconds(3))))
                .orThrow();
        Instant first = lock.expiresAt();

        await("several renewals, well past the first lease", () -> renewals.get() >= 6);
        assertThat(lock.isHeld()).isTrue();
        assertThat(lock.expiresAt()).isAfter(first);
        assertThat(other.acquire("/long", LockMode.EXCLUSIVE).acquired()).isFalse();
        assertThat(lock.release()).isTrue();
        assertThat(other.acquire("/long", LockMode.EXCLUSIVE).acquired()).isTrue();
    }

    @Test
    void shouldRenewOnDemand() {
        TreeLocks locks = locks(namespace());
        TreeLock lock = locks.acquire(LockRequest.of(
                        b -> b.path("/manual").ttl(Duration.ofSeconds(20)).autoRenew(false)))
                .orThrow();
        Instant first = lock.expiresAt();
        sleep(Duration.ofMillis(100));
        assertThat(lock.renew()).isTrue();
        assertThat(lock.expiresAt()).isAfter(first);
        assertThat(lock.isHeld()).isTrue();
        lock.close();
        assertThat(lock.renew()).isFalse();
    }

    /** Records the acquisition and release events it hears, each with the thread it came on. */
    static final class Recorder implements TreeLockListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        private void add(String event) {
            events.add(event + " on " + Thread.currentThread().getName());
        }

        @Override
        public void onAcquireStarted(String index, LockRequest request) {
            add("started " + request.path());
        }

        @Override
        public void onGranted(TreeLock lock, Duration waited) {
            add("granted " + lock.path());
        }

        @Override
        public void onBusy(String index, LockRequest request, List<LockConflict> conflicts, Duration waited) {
            add("busy " + request.path() + " waited " + (waited.compareTo(request.maxWait()) >= 0));
        }

        @Override
        public void onAcquireFailed(String index, LockRequest request, RuntimeException failure, Duration waited) {
            add("failed " + request.path());
        }

        @Override
        public void onReleased(TreeLock lock, boolean held) {
            add("released " + lock.path() + " held " + held);
        }
    }

    @Test
    void shouldReportEachAcquisitionOnTheCallersThreadToTheProvidersAndTheRequestsListener() {
        Recorder provider = new Recorder();
        Recorder request = new Recorder();
        TreeLocks locks = locks(namespace(), b -> b.listener(provider));
        String me = " on " + Thread.currentThread().getName();

        TreeLock held = locks.acquire(LockRequest.of(b -> b.path("/events").listener(request)))
                .orThrow();
        AcquireResult<TreeLock> busy = locks.acquire(LockRequest.of(b -> b.path("/events/below")
                .mode(LockMode.SHARED)
                .owner("someone-else")
                .maxWait(Duration.ofMillis(100))));
        held.close();
        held.close(); // reported once

        assertThat(busy.acquired()).isFalse();
        assertThat(provider.events)
                .containsExactly(
                        "started /events" + me,
                        "granted /events" + me,
                        "started /events/below" + me,
                        "busy /events/below waited true" + me,
                        "released /events held true" + me);
        assertThat(request.events)
                .containsExactly("started /events" + me, "granted /events" + me, "released /events held true" + me);
    }

    @Test
    void shouldReportALostLeaseWhenTheServerNoLongerHoldsIt() throws IOException {
        List<String> lost = new CopyOnWriteArrayList<>();
        TreeLocks locks = locks(
                namespace(),
                b -> b.listener(new TreeLockListener() {
                    @Override
                    public void onLost(TreeLock lock, String reason) {
                        lost.add(reason);
                    }
                }));
        List<String> perLock = new CopyOnWriteArrayList<>();
        TreeLock lock = locks.acquire(LockRequest.of(b -> b.path("/revoked/file")
                        .ttl(Duration.ofMillis(1500))
                        .listener(new TreeLockListener() {
                            @Override
                            public void onLost(TreeLock l, String reason) {
                                perLock.add(reason);
                            }
                        })))
                .orThrow();

        revoke(lock);

        await("the lost lease is reported", () -> !lost.isEmpty());
        assertThat(lost).hasSize(1);
        assertThat(perLock).isEqualTo(lost);
        assertThat(lock.isHeld()).isFalse();
        assertThat(lock.toString()).contains("lost");
        assertThat(lock.release()).isFalse();
        assertThat(lock.renew()).isFalse();
    }

    @Test
    void shouldReportALostLeaseWhenRenewalsStallPastTheLease() {
        List<String> lost = new CopyOnWriteArrayList<>();
        AtomicInteger renewed = new AtomicInteger();
        // A listener that stalls the renewal thread (a long GC pause of the holder, say).
        TreeLocks locks = locks(
                namespace(),
                b -> b.listener(new TreeLockListener() {
                    @Override
                    public void onRenewed(TreeLock lock) {
                        if (renewed.incrementAndGet() == 1) {
                            sleep(Duration.ofMillis(3500));
                        }
                    }

                    @Override
                    public void onLost(TreeLock lock, String reason) {
                        lost.add(reason);
                    }
                }));
        TreeLocks other = locks(locks.index());
        TreeLock lock = locks.acquire(LockRequest.of(b -> b.path("/paused").ttl(Duration.ofSeconds(1))))
                .orThrow();

        await("the lost lease is reported", () -> !lost.isEmpty());
        assertThat(lost.get(0)).contains("expired");
        assertThat(lock.isHeld()).isFalse();
        assertThat(other.acquire(LockRequest.of(b -> b.path("/paused").maxWait(PATIENCE)))
                        .acquired())
                .isTrue();
        assertThat(lock.release()).isFalse();
    }

    @Test
    void shouldKeepRenewingWhenTheListenerThrows() {
        AtomicInteger renewed = new AtomicInteger();
        TreeLocks locks = locks(
                namespace(),
                b -> b.listener(new TreeLockListener() {
                    @Override
                    public void onRenewed(TreeLock lock) {
                        renewed.incrementAndGet();
                        throw new IllegalStateException("a broken listener");
                    }
                }));
        TreeLock lock = locks.acquire(LockRequest.of(b -> b.path("/robust").ttl(Duration.ofSeconds(1))))
                .orThrow();
        await("renewals go on", () -> renewed.get() >= 4);
        assertThat(lock.isHeld()).isTrue();
        assertThat(lock.release()).isTrue();
    }

    @Test
    void shouldStopRenewingWhenClosedNeverLater() throws Exception {
        String ns = namespace();
        // Events recorded with whether the lock had been closed: none may come after close() returned.
        List<String> late = new CopyOnWriteArrayList<>();
        Map<TreeLock, Boolean> closed = Collections.synchronizedMap(new HashMap<>());
        AtomicInteger renewals = new AtomicInteger();
        TreeLocks locks = locks(
                ns,
                b -> b.renewalThreads(2).listener(new TreeLockListener() {
                    @Override
                    public void onRenewed(TreeLock lock) {
                        renewals.incrementAndGet();
                        if (Boolean.TRUE.equals(closed.get(lock))) {
                            late.add("renewed after close: " + lock);
                        }
                    }

                    @Override
                    public void onLost(TreeLock lock, String reason) {
                        // A lease may be lost before close on a loaded machine; after close, nothing may be heard.
                        if (Boolean.TRUE.equals(closed.get(lock))) {
                            late.add("lost after close: " + lock + " " + reason);
                        }
                    }
                }));
        // Leases of 1.5 s renew every 500 ms: closes land on renewals in flight.
        Random random = new Random(11);
        List<TreeLock> held = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String path = "/close/" + i;
            held.add(locks.acquire(LockRequest.of(b -> b.path(path).ttl(Duration.ofMillis(1500))))
                    .orThrow());
        }
        await("renewals are running", () -> renewals.get() >= 16);
        for (TreeLock lock : held) {
            sleep(Duration.ofMillis(random.nextInt(250)));
            try {
                lock.close();
            } catch (LeaseLostException e) {
                // Lost before close (a renewal late on a loaded machine): close says so, and still releases.
            }
            closed.put(lock, true);
            assertThat(lock.isHeld()).isFalse();
        }
        int atClose = renewals.get();
        sleep(Duration.ofMillis(2000));
        assertThat(renewals.get()).isEqualTo(atClose);
        assertThat(late).isEmpty();
        TreeLocks other = locks(ns);
        for (int i = 0; i < held.size(); i++) {
            other.acquire("/close/" + i, LockMode.EXCLUSIVE).orThrow().close();
        }
    }

    @Test
    void shouldReleaseOpenLocksWhenTheProviderCloses() {
        String ns = namespace();
        TreeLocks closing = locks(ns);
        TreeLocks other = locks(ns);
        TreeLock a = closing.acquire("/p/a", LockMode.EXCLUSIVE).orThrow();
        TreeLock b = closing.acquire("/p/b", LockMode.SHARED).orThrow();
        closing.close();
        closing.close();
        assertThat(a.isHeld()).isFalse();
        assertThat(b.isHeld()).isFalse();
        other.acquire("/p", LockMode.EXCLUSIVE).orThrow().close();
        assertThatThrownBy(() -> closing.acquire("/p", LockMode.SHARED)).isInstanceOf(IllegalStateException.class);
    }

    // ---- tokens ---------------------------------------------------------------------------------------

    @Test
    void shouldIssueStrictlyIncreasingTokensPerPath() {
        TreeLocks locks = locks(namespace());
        long last = 0;
        for (int i = 0; i < 15; i++) {
            LockMode mode = i % 3 == 0 ? LockMode.SHARED : LockMode.EXCLUSIVE;
            try (TreeLock lock = locks.acquire("/t/file", mode).orThrow()) {
                assertThat(lock.token()).isGreaterThan(last);
                last = lock.token();
            }
            // A grant below the path does not go back in time either.
            locks.acquire("/t/file/x", LockMode.EXCLUSIVE).orThrow().close();
        }
        // Across the expiry of a lease that was never released.
        TreeLock expiring = locks.acquire(LockRequest.of(
                        b -> b.path("/t/file").ttl(Duration.ofMillis(1000)).autoRenew(false)))
                .orThrow();
        assertThat(expiring.token()).isGreaterThan(last);
        TreeLock after = locks.acquire(LockRequest.of(b -> b.path("/t/file").maxWait(PATIENCE)))
                .orThrow();
        assertThat(after.token()).isGreaterThan(expiring.token());
        after.close();
    }

    // ---- waiting --------------------------------------------------------------------------------------

    @Test
    void shouldSucceedAWaitWhenTheHolderReleases() throws Exception {
        String ns = namespace();
        TreeLocks holder = locks(ns, b -> b.owner("holder"));
        TreeLocks waiter = locks(ns, b -> b.owner("waiter"));
        TreeLock held = holder.acquire("/w/dir", LockMode.EXCLUSIVE).orThrow();
        CountDownLatch started = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<AcquireResult<TreeLock>> waiting = pool.submit(() -> {
                started.countDown();
                return waiter.acquire(LockRequest.of(
                        b -> b.path("/w/dir/file").mode(LockMode.SHARED).maxWait(PATIENCE)));
            });
            started.await();
            sleep(Duration.ofMillis(700));
            assertThat(waiting).isNotDone();
            held.close();
            AcquireResult<TreeLock> r = waiting.get(PATIENCE.toSeconds() + 10, TimeUnit.SECONDS);
            assertThat(r.acquired()).isTrue();
            assertThat(r.orThrow().owner()).isEqualTo("waiter");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldGiveUpAWaitWithTheConflicts() {
        String ns = namespace();
        TreeLocks holder = locks(ns, b -> b.owner("holder"));
        TreeLocks waiter = locks(ns);
        TreeLock held = holder.acquire("/busy", LockMode.EXCLUSIVE).orThrow();
        AcquireResult<TreeLock> r = waiter.acquire("/busy/x", LockMode.SHARED, Duration.ofMillis(400));
        assertThat(r.acquired()).isFalse();
        assertThat(r.conflicts()).extracting(LockConflict::owner).containsExactly("holder");
        assertThat(r.toString()).contains("busy");
        held.close();
    }

    // ---- listing ----------------------------------------------------------------------------------------

    @Test
    void shouldListLiveGrantsUnderAPrefix() {
        String ns = namespace();
        TreeLocks a = locks(ns, b -> b.owner("a"));
        TreeLocks b = locks(ns, b2 -> b2.owner("b"));
        TreeLock x = a.acquire("/l/x/1.txt", LockMode.EXCLUSIVE).orThrow();
        TreeLock s1 = a.acquire("/l/s", LockMode.SHARED).orThrow();
        TreeLock s2 = b.acquire("/l/s", LockMode.SHARED).orThrow();
        TreeLock other = b.acquire("/other", LockMode.EXCLUSIVE).orThrow();

        List<LockInfo> under = a.list(TreePath.of("/l"));
        assertThat(under).extracting(LockInfo::path).containsExactly(TreePath.of("/l/s"), TreePath.of("/l/x/1.txt"));
        LockInfo shared = under.get(0);
        assertThat(shared.mode()).isEqualTo(LockMode.SHARED);
        assertThat(shared.holders()).extracting(LockInfo.Holder::owner).containsExactly("a", "b");
        assertThat(shared.holders()).extracting(LockInfo.Holder::token).containsExactly(s1.token(), s2.token());
        LockInfo exclusive = under.get(1);
        assertThat(exclusive.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(exclusive.holders()).singleElement().satisfies(h -> {
            assertThat(h.owner()).isEqualTo("a");
            assertThat(h.token()).isEqualTo(x.token());
            assertThat(h.expiresAt()).isAfter(Instant.now());
        });
        assertThat(a.list(TreePath.of("/l/x"))).extracting(LockInfo::path).containsExactly(TreePath.of("/l/x/1.txt"));
        assertThat(a.list(TreePath.of("/l/x/1.txt"))).hasSize(1);
        assertThat(a.list(TreePath.of("/lx"))).isEmpty();
        assertThat(a.list())
                .extracting(LockInfo::path)
                .contains(TreePath.of("/other"))
                .hasSize(3);

        x.close();
        s1.close();
        assertThat(a.list(TreePath.of("/l")))
                .singleElement()
                .satisfies(l -> assertThat(l.holders())
                        .extracting(LockInfo.Holder::owner)
                        .containsExactly("b"));
        s2.close();
        other.close();
        assertThat(a.list()).isEmpty();
    }

    // ---- contention -------------------------------------------------------------------------------------

    /**
     * Threads hammer a small tree with random acquisitions and releases; an invariant checker records
     * every holder between its grant and its release and fails on any two holders that conflict under
     * the tree rules, or a fencing token that goes back.
     */
    @Test
    @Tag(TestTags.LOAD)
    void shouldNeverGrantConflictingLocksUnderContention() throws Exception {
        String ns = namespace();
        int threads = 8;
        int opsPerThread = contentionOpsPerThread();
        List<TreePath> tree = List.of("/", "/a", "/a/b", "/a/b/c", "/a/b/d", "/a/e", "/f", "/f/g").stream()
                .map(TreePath::of)
                .toList();
        InvariantChecker checker = new InvariantChecker();
        List<TreeLocks> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int n = t;
            workers.add(locks(ns, b -> b.owner("worker-" + n).ttl(Duration.ofSeconds(30))));
        }
        AtomicInteger granted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                TreeLocks locks = workers.get(t);
                Random random = new Random(1000 + t);
                done.add(pool.submit(() -> {
                    for (int i = 0; i < opsPerThread; i++) {
                        TreePath path = tree.get(random.nextInt(tree.size()));
                        // The root is rarely locked exclusively, or nothing else would get through.
                        LockMode mode =
                                random.nextInt(path.isRoot() ? 10 : 2) == 0 ? LockMode.EXCLUSIVE : LockMode.SHARED;
                        Duration wait = random.nextInt(4) == 0 ? Duration.ofMillis(random.nextInt(300)) : Duration.ZERO;
                        AcquireResult<TreeLock> r = locks.acquire(
                                LockRequest.of(b -> b.path(path).mode(mode).maxWait(wait)));
                        if (!r.acquired()) {
                            refused.incrementAndGet();
                            continue;
                        }
                        granted.incrementAndGet();
                        TreeLock lock = r.orThrow();
                        checker.granted(lock);
                        sleep(Duration.ofMillis(random.nextInt(4)));
                        checker.releasing(lock);
                        assertThat(lock.release())
                                .as("held until released: %s", lock)
                                .isTrue();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(checker.violations()).isEmpty();
        assertThat(granted.get() + refused.get()).isEqualTo(threads * opsPerThread);
        assertThat(granted.get()).as("a fair share is granted").isGreaterThan(threads * opsPerThread / 10);
        assertThat(refused.get()).as("the tree is contended").isPositive();
        assertThat(checker.current()).isEmpty();
        assertThat(workers.get(0).list()).as("nothing left held").isEmpty();
        org.slf4j.LoggerFactory.getLogger(getClass())
                .info(
                        "{}: {} granted, {} refused, {} grants checked",
                        backend(),
                        granted.get(),
                        refused.get(),
                        checker.checked());
    }

    /** Records live holders; any two that conflict under the tree rules is a violation. */
    static final class InvariantChecker {
        private final List<TreeLock> live = new ArrayList<>();
        private final Map<TreePath, Long> lastExclusiveToken = new HashMap<>();
        private final Map<TreePath, Long> maxToken = new HashMap<>();
        private final List<String> violations = new ArrayList<>();
        private final AtomicLong checked = new AtomicLong();

        synchronized void granted(TreeLock lock) {
            checked.incrementAndGet();
            for (TreeLock other : live) {
                if (conflict(lock, other)) {
                    violations.add(lock + " granted while " + other + " was held");
                }
            }
            long max = maxToken.getOrDefault(lock.path(), 0L);
            if (lock.mode() == LockMode.EXCLUSIVE && lock.token() <= max) {
                // Every earlier grant on this path was released before an exclusive grant: its token must be larger.
                violations.add(lock + " has a token not above " + max + ", an earlier grant's on the same path");
            }
            if (lock.token() == lastExclusiveToken.getOrDefault(lock.path(), -1L)) {
                violations.add(lock + " reuses a token");
            }
            maxToken.merge(lock.path(), lock.token(), Math::max);
            if (lock.mode() == LockMode.EXCLUSIVE) {
                lastExclusiveToken.put(lock.path(), lock.token());
            }
            live.add(lock);
        }

        synchronized void releasing(TreeLock lock) {
            live.remove(lock);
        }

        /** Tree rule: two grants conflict on a path both hold where at least one holds it exclusively. */
        static boolean conflict(TreeLock a, TreeLock b) {
            if (a.path().equals(b.path())) {
                return a.mode() == LockMode.EXCLUSIVE || b.mode() == LockMode.EXCLUSIVE;
            }
            if (a.path().isAncestorOf(b.path())) {
                return a.mode() == LockMode.EXCLUSIVE; // b holds a.path shared
            }
            if (b.path().isAncestorOf(a.path())) {
                return b.mode() == LockMode.EXCLUSIVE;
            }
            return false;
        }

        synchronized List<String> violations() {
            return List.copyOf(violations);
        }

        synchronized List<TreeLock> current() {
            return List.copyOf(live);
        }

        long checked() {
            return checked.get();
        }
    }

    // ---- helpers --------------------------------------------------------------------------------------

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + PATIENCE.toSeconds() + " s waiting until " + what);
            }
            sleep(Duration.ofMillis(25));
        }
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
