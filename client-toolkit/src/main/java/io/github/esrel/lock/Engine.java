package io.github.esrel.lock;

import io.github.esrel.ExceptionTranslator;
import io.github.esrel.internal.Listeners;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.Sleeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both providers share: defaults, the wait loop, the renewal threads and the open handles.
 * Thread-safe.
 */
final class Engine {

    private static final Logger log = LoggerFactory.getLogger(Engine.class);
    private static final AtomicInteger PROVIDERS = new AtomicInteger();

    /**
     * The longest single server-side wait: a long {@code wait} is split into requests of at most this
     * long, so that no request outlives the HTTP client's socket timeout (30 s by default).
     */
    static final Duration MAX_SERVER_WAIT = Duration.ofSeconds(10);

    final String index;
    final String owner;
    final Duration ttl;
    final TreeLockListener listener;
    /** For the exception of {@link AcquireResult#orThrow()} when busy. */
    final ExceptionTranslator translator;

    final Backoff waitBackoff;
    final Sleeper sleeper;
    private final ScheduledThreadPoolExecutor scheduler;
    private final Set<Lease> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    Engine(TreeLocks.Builder b) {
        this.index = requireIndex(b.index);
        this.owner = b.owner != null ? b.owner : defaultOwner();
        this.ttl = b.ttl;
        this.listener = b.listener;
        this.translator = b.exceptionTranslator;
        this.waitBackoff = b.waitBackoff;
        this.sleeper = b.sleeper;
        int id = PROVIDERS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        this.scheduler = new ScheduledThreadPoolExecutor(b.renewalThreads, r -> {
            Thread t = new Thread(r, "esrel-treelock-renewal-" + id + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * One step of a wait loop: the held lock, or the conflicts, or why there is neither.
     *
     * @param late set when the store granted, but its answer came after the lease had ended, or when the answers to
     *     the attempt were lost; what it may have granted was given back
     */
    record Step<L>(
            @Nullable L lock,
            List<LockConflict> conflicts,
            @Nullable String late) {
        Step(@Nullable L lock, List<LockConflict> conflicts) {
            this(lock, conflicts, null);
        }
    }

    AcquireResult<TreeLock> acquire(LockStore store, LockRequest r) {
        List<TreeLockListener> listeners = listeners(r);
        // Nobody listens (the common case): no events, so nothing is allocated for them.
        if (listeners.isEmpty()) {
            return attempts(store, r, listeners);
        }
        long start = System.nanoTime();
        fire(listeners, l -> l.onAcquireStarted(index, r));
        AcquireResult<TreeLock> result;
        try {
            result = attempts(store, r, listeners);
        } catch (RuntimeException e) {
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            fire(listeners, l -> l.onAcquireFailed(index, r, e, waited));
            throw e;
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        TreeLock lock = result.lock().orElse(null);
        if (lock != null) {
            fire(listeners, l -> l.onGranted(lock, waited));
        } else {
            fire(listeners, l -> l.onBusy(index, r, result.conflicts(), waited));
        }
        return result;
    }

    /** The provider's listener and the request's, without the no-op ones. */
    private List<TreeLockListener> listeners(LockRequest r) {
        boolean provider = listener != TreeLockListener.NO_OP;
        boolean request = r.listener() != TreeLockListener.NO_OP;
        return provider && request
                ? List.of(listener, r.listener())
                : provider ? List.of(listener) : request ? List.of(r.listener()) : List.of();
    }

    private static void fire(List<TreeLockListener> listeners, Consumer<TreeLockListener> event) {
        for (TreeLockListener l : listeners) {
            Listeners.safely(() -> event.accept(l), "TreeLockListener");
        }
    }

    private AcquireResult<TreeLock> attempts(LockStore store, LockRequest r, List<TreeLockListener> listeners) {
        String who = r.owner() != null ? r.owner() : owner;
        Duration leaseTtl = r.ttl() != null ? r.ttl() : ttl;
        // The server waits at most half the lease: the client counts the lease from when it sent the request, so a
        // grant made after a longer wait would reach it with little or none of its lease left.
        Duration maxServerWait = store.waitsOnServer() ? min(MAX_SERVER_WAIT, leaseTtl.dividedBy(2)) : Duration.ZERO;
        return waitLoop(r.toString(), r.maxWait(), maxServerWait, serverWait -> {
            long sent = System.nanoTime();
            LockStore.Attempt a = store.tryAcquire(r.path(), r.mode(), who, leaseTtl, serverWait);
            LockStore.Grant grant = a.grant();
            if (grant == null) {
                return new Step<>(null, a.conflicts(), a.lost());
            }
            return granted(
                    grant,
                    leaseTtl,
                    sent,
                    r.autoRenew(),
                    lease -> new TreeLock(index, r.path(), r.mode(), who, grant.token(), lease, listeners));
        });
    }

    /**
     * The step for a grant: its handle, or, when the answer came after the lease had already ended (a slow or
     * stalled network, a paused JVM) and the lease was to be renewed, the grant given back and the reason. Such a
     * lease is over before it could be renewed: handing it out would give a lock that is lost at once, and whose
     * holder the next grant may already have replaced. A lease the caller does not renew is a fixed term it chose
     * (ShedLock's {@code lockAtMostFor}): that grant is handed out as it is, over or not, as the server made it.
     *
     * @param sentNanos {@link System#nanoTime()} when the granting request was sent
     */
    <L> Step<L> granted(
            LockStore.Grant grant, Duration leaseTtl, long sentNanos, boolean autoRenew, Function<Lease, L> handle) {
        long took = System.nanoTime() - sentNanos;
        if (autoRenew && took >= leaseTtl.toNanos()) {
            try {
                grant.ops().release();
            } catch (RuntimeException e) {
                log.debug("giving back a grant that came too late failed; it ends with its lease", e);
            }
            return new Step<>(
                    null,
                    List.of(),
                    "the lock was granted, but the answer took "
                            + Duration.ofNanos(took).toMillis()
                            + " ms, longer than the lease of " + leaseTtl.toMillis()
                            + " ms; the grant was given back");
        }
        return new Step<>(handle.apply(newLease(grant.ops(), leaseTtl, sentNanos, grant, autoRenew)), List.of());
    }

    private Lease newLease(Lease.Ops ops, Duration leaseTtl, long sentNanos, LockStore.Grant grant, boolean autoRenew) {
        Lease[] self = new Lease[1];
        Lease lease = new Lease(
                ops, leaseTtl, sentNanos, grant.expiresAt(), autoRenew ? scheduler : null, () -> open.remove(self[0]));
        self[0] = lease;
        open.add(lease);
        if (closed) {
            // Raced with close(): do not leave a lock behind that nobody will release.
            lease.release();
            throw new IllegalStateException("the lock provider is closed");
        }
        return lease;
    }

    /**
     * Attempts until granted or {@code maxWait} runs out. Between attempts it holds nothing and sleeps
     * the wait backoff (or, when the server waits, asks it to wait up to {@code maxServerWait}).
     *
     * @param maxServerWait the longest wait one attempt may ask of the server; zero when the client polls
     * @throws TreeLockException if interrupted while waiting (the interrupt flag is set again), or, with status
     *     {@link TreeLockException#UNAVAILABLE}, if the time ran out after a grant whose answer came too late
     */
    <L> AcquireResult<L> waitLoop(
            String what, Duration maxWait, Duration maxServerWait, Function<Duration, Step<L>> attempt) {
        checkOpen();
        long deadline = System.nanoTime() + maxWait.toNanos();
        for (int n = 1; ; n++) {
            long left = deadline - System.nanoTime();
            Duration serverWait = left > 0 ? Duration.ofNanos(Math.min(left, maxServerWait.toNanos())) : Duration.ZERO;
            Step<L> step = attempt.apply(serverWait);
            if (step.lock() != null) {
                return AcquireResult.acquired(step.lock());
            }
            left = deadline - System.nanoTime();
            if (left <= 0) {
                if (step.late() != null) {
                    // Not busy: the lock was free, or its answers were lost, and what was granted is given back.
                    throw new TreeLockException(
                            "could not lock " + what + ": " + step.late(), TreeLockException.UNAVAILABLE, null);
                }
                return AcquireResult.busy(what, step.conflicts(), translator);
            }
            Duration pause = waitBackoff.delay(n);
            try {
                sleeper.sleep(Duration.ofNanos(Math.min(pause.toNanos(), left)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TreeLockException("interrupted while waiting to lock " + what, 0, e, step.conflicts());
            }
            checkOpen();
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the lock provider is closed");
        }
    }

    /** Releases every open lock (best effort) and stops the renewal threads. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Lease lease : new ArrayList<>(open)) {
            try {
                lease.release();
            } catch (RuntimeException e) {
                log.warn("releasing a lock while closing the provider failed; it ends with its lease", e);
            }
        }
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String requireIndex(@Nullable String index) {
        if (index == null || index.isBlank()) {
            throw new IllegalArgumentException("index must be set: locks are namespaced by the target index");
        }
        return index;
    }

    /** host-pid-random: unique per provider, readable in conflicts. */
    static String defaultOwner() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            host = "host";
        }
        return host + "-" + ProcessHandle.current().pid() + "-"
                + Long.toHexString(
                        java.util.concurrent.ThreadLocalRandom.current().nextLong() & 0xffffffL);
    }
}
