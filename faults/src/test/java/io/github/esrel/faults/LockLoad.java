package io.github.esrel.faults;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLockException;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Contended tree-lock traffic on one provider backend, for as long as a fault lasts: worker threads lock
 * random paths of a small tree (shared or exclusive, failing fast or waiting a little), report every
 * grant and release to a {@link GrantObserver}, and count what they got; a probe thread locks and
 * releases a path of its own namespace every 50 ms to time when the lock service answers.
 *
 * <p>One load per backend lives across all the faults of a test class, so the observer checks tokens
 * across every fault. Each {@link #start} begins a phase; {@link #stop} ends it and returns its counts.
 */
final class LockLoad {

    static final List<TreePath> TREE = List.of("/", "/a", "/a/b", "/a/b/c", "/a/b/d", "/a/e", "/f", "/f/g").stream()
            .map(TreePath::of)
            .toList();
    static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration PROBE_INTERVAL = Duration.ofMillis(50);

    private final ElasticsearchClient es;
    private final TreeLocks.Backend backend;
    private final String namespace;
    private final String probeNamespace;
    private final int threads;
    final GrantObserver observer = new GrantObserver();

    private final AtomicLong granted = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong releaseErrors = new AtomicLong();
    private final AtomicLong lostBeforeRelease = new AtomicLong();
    private final List<long[]> probeAnswers = new ArrayList<>();
    private final List<TreeLocks> providers = new ArrayList<>();
    private AtomicBoolean stop;
    private ExecutorService pool;
    private List<Future<?>> running;
    private long phaseStart;
    private long opsAtStart;
    /** Counters when the phase started: granted, busy, errors, failed releases, lost, violations, expired overlaps. */
    private long[] base = new long[7];

    private int round;

    LockLoad(ElasticsearchClient es, TreeLocks.Backend backend, String namespace, String probeNamespace, int threads) {
        this.es = es;
        this.backend = backend;
        this.namespace = namespace;
        this.probeNamespace = probeNamespace;
        this.threads = threads;
    }

    TreeLocks.Backend backend() {
        return backend;
    }

    /** Acquisitions answered (granted or busy) since the load was made. */
    long operations() {
        return granted.get() + refused.get();
    }

    /** Acquisitions granted since the load was made. */
    long granted() {
        return granted.get();
    }

    /** Acquisitions that failed with an error (no answer, or one that says nothing) since the load was made. */
    long errors() {
        return errors.get();
    }

    /**
     * The longest time without a probe answer between {@code from} and {@code to} (nanoTime): from {@code from} to
     * the first answer after it, between answers, and from the last answer to {@code to}.
     */
    long longestGapMs(long from, long to) {
        synchronized (probeAnswers) {
            long gap = 0;
            long previous = from;
            for (long[] a : probeAnswers) {
                if (a[1] <= from || a[1] > to) {
                    continue;
                }
                gap = Math.max(gap, a[1] - previous);
                previous = a[1];
            }
            return Math.max(gap, to - previous) / 1_000_000;
        }
    }

    /** Acquisitions answered in the current phase. */
    long phaseOperations() {
        return operations() - opsAtStart;
    }

    /** Starts the workers and the probe of a new phase. */
    synchronized void start() {
        stop = new AtomicBoolean();
        pool = Executors.newFixedThreadPool(threads + 1);
        running = new ArrayList<>();
        phaseStart = System.nanoTime();
        opsAtStart = operations();
        synchronized (probeAnswers) {
            probeAnswers.clear();
        }
        round++;
        for (int t = 0; t < threads; t++) {
            TreeLocks locks = provider(namespace, "worker-" + t);
            Random random = new Random(1000L * round + t);
            running.add(pool.submit(() -> work(locks, random)));
        }
        TreeLocks probe = provider(probeNamespace, "probe");
        running.add(pool.submit(() -> probe(probe)));
    }

    private TreeLocks provider(String ns, String owner) {
        TreeLocks locks = TreeLocks.of(
                b -> b.client(es).index(ns).backend(backend).owner(owner).ttl(TTL));
        providers.add(locks);
        return locks;
    }

    private Void work(TreeLocks locks, Random random) throws InterruptedException {
        while (!stop.get()) {
            TreePath path = TREE.get(random.nextInt(TREE.size()));
            // The root is rarely locked exclusively, or nothing else would get through.
            LockMode mode = random.nextInt(path.isRoot() ? 10 : 2) == 0 ? LockMode.EXCLUSIVE : LockMode.SHARED;
            Duration wait = random.nextInt(4) == 0 ? Duration.ofMillis(random.nextInt(300)) : Duration.ZERO;
            long ticket = observer.sending();
            AcquireResult<TreeLock> r;
            try {
                r = locks.acquire(LockRequest.of(b -> b.path(path).mode(mode).maxWait(wait)));
            } catch (TreeLockException e) {
                errors.incrementAndGet();
                Thread.sleep(100);
                continue;
            }
            if (!r.acquired()) {
                refused.incrementAndGet();
                continue;
            }
            granted.incrementAndGet();
            TreeLock lock = r.orThrow();
            observer.granted(lock, ticket);
            Thread.sleep(random.nextInt(4));
            observer.releasing(lock);
            try {
                if (!lock.release()) {
                    lostBeforeRelease.incrementAndGet();
                }
            } catch (TreeLockException e) {
                releaseErrors.incrementAndGet(); // the lock ends with its lease
            }
        }
        return null;
    }

    private Void probe(TreeLocks locks) throws InterruptedException {
        while (!stop.get()) {
            long sent = System.nanoTime();
            try {
                locks.acquire("/probe", LockMode.EXCLUSIVE).lock().ifPresent(TreeLock::release);
                synchronized (probeAnswers) {
                    probeAnswers.add(new long[] {sent, System.nanoTime()});
                }
            } catch (TreeLockException e) {
                // Not answering: that is what the probe measures.
            }
            Thread.sleep(PROBE_INTERVAL.toMillis());
        }
        return null;
    }

    /** What the lock service did during a fault, from the probe's answers. */
    record Recovery(long answersAgainMs, long longestGapMs) {}

    /**
     * From the probe: how long after {@code faultStart} the first probe sent after it was answered, and
     * the longest time without an answer in the phase so far.
     */
    Recovery recovery(long faultStart) {
        synchronized (probeAnswers) {
            long again = -1;
            long gap = 0;
            long previous = phaseStart;
            for (long[] a : probeAnswers) {
                if (again < 0 && a[0] >= faultStart) {
                    again = (a[1] - faultStart) / 1_000_000;
                }
                gap = Math.max(gap, (a[1] - previous) / 1_000_000);
                previous = a[1];
            }
            return new Recovery(again, gap);
        }
    }

    /** Counts of one phase. */
    record Phase(
            long operations,
            long granted,
            long refused,
            long errors,
            long releaseErrors,
            long lostBeforeRelease,
            long violations,
            long expiredOverlaps) {}

    private long[] counters() {
        return new long[] {
            granted.get(),
            refused.get(),
            errors.get(),
            releaseErrors.get(),
            lostBeforeRelease.get(),
            observer.violations().size(),
            observer.expiredOverlaps()
        };
    }

    /** Stops the workers and the probe, waits for them, closes their providers; the phase's counts. */
    synchronized Phase stop() throws Exception {
        stop.set(true);
        pool.shutdown();
        if (!pool.awaitTermination(3, TimeUnit.MINUTES)) {
            pool.shutdownNow();
            throw new AssertionError("the " + backend + " workers did not stop within 3 minutes");
        }
        for (Future<?> f : running) {
            f.get();
        }
        providers.forEach(TreeLocks::close);
        providers.clear();
        long[] now = counters();
        Phase p = new Phase(
                operations() - opsAtStart,
                now[0] - base[0],
                now[1] - base[1],
                now[2] - base[2],
                now[3] - base[3],
                now[4] - base[4],
                now[5] - base[5],
                now[6] - base[6]);
        base = now;
        return p;
    }

    /**
     * Waits until nothing is locked in the namespace: grants whose release failed, or which the service
     * made while the client gave up on the request, end with their lease.
     *
     * @return how long that took, in ms
     */
    long awaitAllFree(Duration patience) throws InterruptedException {
        long start = System.nanoTime();
        try (TreeLocks locks = TreeLocks.of(b -> b.client(es).index(namespace).backend(backend))) {
            while (true) {
                try {
                    if (locks.list().isEmpty()) {
                        return (System.nanoTime() - start) / 1_000_000;
                    }
                } catch (TreeLockException e) {
                    // Still recovering: ask again.
                }
                if (System.nanoTime() - start > patience.toNanos()) {
                    throw new AssertionError(backend + " locks still held " + patience.toSeconds()
                            + " s after the load stopped: " + locks.list());
                }
                Thread.sleep(200);
            }
        }
    }
}
