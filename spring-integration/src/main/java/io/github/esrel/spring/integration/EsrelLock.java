package io.github.esrel.spring.integration;

import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.path.TreePath;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The lock {@link EsrelLockRegistry#obtain(Object)} returns for a key: a local {@link ReentrantLock} (re-entry, and
 * the threads of this JVM, are handled locally) over an exclusive esrel tree lock on the key's path, taken on the first
 * hold and released on the last {@link #unlock()}. While held, the tree lock's lease is renewed in the background
 * (every third of the lease) unless the registry was built with {@code autoRenew(false)}.
 *
 * <p>{@link #unlock()} by a thread that does not hold the lock throws {@link IllegalMonitorStateException}; the last
 * unlock of a lock whose lease was lost before it (it ran out or was taken over, so another holder may have worked
 * meanwhile) releases the local lock and throws {@link ConcurrentModificationException}, as Spring's JDBC registry
 * does. {@link #newCondition()} is not supported.
 */
public final class EsrelLock implements LineLock {

    /** The longest single wait handed to the tree locks; longer waits loop, so that interrupts are seen. */
    private static final Duration WAIT_SLICE = Duration.ofSeconds(1);

    /** How often a renewal on re-entry that is not answered yet checks whether the lease ran out meanwhile. */
    private static final long RENEWAL_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * Runs the renewals on re-entry, so that one the cluster does not answer (a partition that drops packets: the
     * request hangs until the client's socket timeout) is waited for no longer than the lease lasts. Daemon threads,
     * gone after a minute idle.
     */
    private static final ExecutorService RENEWALS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "esrel-lock-renewal");
        t.setDaemon(true);
        return t;
    });

    private final EsrelLockRegistry registry;
    private final TreePath path;
    private final ReentrantLock local = new ReentrantLock();
    private volatile @Nullable TreeLock held;
    private volatile boolean lost;
    private volatile long lastUsedNanos = System.nanoTime();
    /** The thread whose holds a re-entry ended on a lost lease, and how many of them it has not unlocked yet. */
    private volatile @Nullable Thread lostBy;

    private volatile int lostHolds;

    EsrelLock(EsrelLockRegistry registry, TreePath path) {
        this.registry = registry;
        this.path = path;
    }

    /**
     * The tree-lock path this lock takes: the key's escaped segment under the registry's prefix.
     *
     * @return the path, never {@code null}
     */
    public TreePath path() {
        return path;
    }

    /**
     * The fencing token of the current hold: it grows with every grant of this path, so a store that keeps the
     * highest token seen (for example as an external version) can refuse the writes of an earlier holder.
     *
     * @return the token of the tree lock held now
     * @throws IllegalMonitorStateException if the current thread does not hold this lock
     */
    public long token() {
        TreeLock l = held;
        if (!local.isHeldByCurrentThread() || l == null) {
            throw new IllegalMonitorStateException("the current thread does not hold the lock at " + path);
        }
        return l.token();
    }

    /**
     * Whether the distributed lock is held (by a thread of this JVM) and its lease has not run out by this client's
     * clock. Local: it asks nobody.
     *
     * @return whether held
     */
    public boolean isHeld() {
        TreeLock l = held;
        return l != null && l.isHeld();
    }

    @Override
    public void lock() {
        lock(registry.ttl());
    }

    /**
     * Locks, waiting as long as it takes (interrupts are remembered and set again once locked), with a lease of
     * {@code ttl} for this hold instead of the registry's.
     *
     * @param ttl the lease, at least 1 ms
     * @throws io.github.esrel.lock.TreeLockException if the cluster cannot be reached or refuses the request
     */
    @Override
    public void lock(Duration ttl) {
        local.lock();
        if (local.getHoldCount() > 1) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (acquire(WAIT_SLICE, ttl)) {
                        return;
                    }
                } catch (RuntimeException e) {
                    if (!interrupted(e)) {
                        throw e;
                    }
                    interrupted = true;
                }
            }
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        if (local.getHoldCount() > 1) {
            return;
        }
        try {
            while (!acquireInterruptibly(WAIT_SLICE, registry.ttl())) {
                // wait on
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock() {
        try {
            return tryLock(Duration.ZERO, registry.ttl());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(time)), registry.ttl());
    }

    /**
     * Locks if free within {@code waitTime}, with a lease of {@code ttl} for this hold. On re-entry the lease is
     * renewed first, waiting no longer than the lease lasts: a lease lost meanwhile (it ran out, it was taken over, or
     * the cluster did not answer before it ended) is released and this returns {@code false}, so that a leader learns
     * it lost the lead within its lease even while the cluster cannot be reached. The current thread then no longer
     * holds the lock (as Spring's leader initiator takes it): its {@link #unlock()}s of the holds it had are still
     * accepted, and the last of them throws {@link ConcurrentModificationException}; the next {@code tryLock} takes it
     * again if free, as a first hold. Interrupted or failed, a re-entry leaves the hold count as it was.
     *
     * @param waitTime the longest wait, zero to fail fast
     * @param ttl the lease, at least 1 ms
     * @return whether the lock is held
     * @throws InterruptedException if interrupted while waiting
     * @throws io.github.esrel.lock.TreeLockException if the cluster cannot be reached or refuses the request
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, waitTime.toNanos());
        if (!local.tryLock(Math.max(0, waitTime.toNanos()), TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (local.getHoldCount() > 1 && held != null) {
            boolean still;
            try {
                still = stillHeld();
            } catch (InterruptedException | RuntimeException | Error e) {
                // A call that throws takes no hold (Spring's leader initiator, stopped during its heartbeat, unlocks
                // once: a hold left here would keep the tree lock, renewed, with no one to release it).
                local.unlock();
                throw e;
            }
            if (still) {
                return true;
            }
            // The lease ran out or was taken over while held: the holder learns it now, not after an attempt to
            // take it again, which may hang as long as the renewal did. Its holds end here too: Spring's leader
            // initiator takes a false heartbeat as the end of its hold and never unlocks it. A hold kept would stay
            // with its thread once the initiator is stopped (no lead again after start()), and would count under
            // the next grant, whose one unlock on stop() would then not release the tree lock (renewed for good).
            // The holder's unlocks of those holds are counted instead: the last throws, as after any lost lease.
            lostHolds = (lostBy == Thread.currentThread() ? lostHolds : 0) + local.getHoldCount() - 1;
            lostBy = Thread.currentThread();
            while (local.isHeldByCurrentThread()) {
                local.unlock();
            }
            return false;
        }
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                Duration slice = Duration.ofNanos(Math.max(0, Math.min(left, WAIT_SLICE.toNanos())));
                if (acquireInterruptibly(slice, ttl)) {
                    return true;
                }
                if (deadline - System.nanoTime() <= 0) {
                    local.unlock();
                    return false;
                }
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            if (lostBy == Thread.currentThread() && lostHolds > 0) {
                // A hold that a re-entry ended on a lost lease (see tryLock): the last of them reports the loss.
                if (--lostHolds > 0) {
                    return;
                }
                lostBy = null;
                throw lostBeforeUnlock();
            }
            throw new IllegalMonitorStateException("the current thread does not hold the lock at " + path);
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        try {
            TreeLock l = held;
            held = null;
            lastUsedNanos = System.nanoTime();
            boolean wasLost = lost;
            lost = false;
            if (wasLost || (l != null && !l.release())) {
                throw lostBeforeUnlock();
            }
        } finally {
            local.unlock();
        }
    }

    private ConcurrentModificationException lostBeforeUnlock() {
        return new ConcurrentModificationException("the lease of the lock at " + path
                + " was lost before unlock; the work it protected may have overlapped with another holder's");
    }

    /**
     * Not supported: a condition cannot be shared across JVMs.
     *
     * @return never
     * @throws UnsupportedOperationException always
     */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("conditions are not supported by distributed locks");
    }

    /**
     * On re-entry with {@code tryLock}: renews the lease now, as Spring's JDBC and Redis registries re-acquire in
     * their store, so that a holder whose lease was lost meanwhile (a long pause, a partition) learns it here
     * (LockRegistryLeaderInitiator's heartbeat is such a re-entry). A renewal not answered is waited for only until
     * the lease ends by this client's clock (a partition that drops packets would otherwise hold the heartbeat until
     * the socket times out, and the leader would go on leading seconds after its lease ended: measured 6.8-8.8 s
     * with 3 s leases). A lost lease is dropped; an I/O failure answers with the local view.
     */
    private boolean stillHeld() throws InterruptedException {
        TreeLock l = held;
        if (l == null) {
            return false;
        }
        if (l.isHeld()) {
            // Waited for no longer than the lease: past its end the holder must learn that it is over (a renewal
            // answered later does not bring it back: the lease is released below).
            CompletableFuture<Boolean> renewal = CompletableFuture.supplyAsync(l::renew, RENEWALS);
            while (l.isHeld()) {
                try {
                    if (renewal.get(RENEWAL_POLL_NANOS, TimeUnit.NANOSECONDS)) {
                        return true;
                    }
                    break; // a verdict: lost
                } catch (TimeoutException e) {
                    // not answered yet
                } catch (ExecutionException e) {
                    if (l.isHeld()) {
                        return true; // no verdict (I/O): held until the lease ends, as far as this client knows
                    }
                    break;
                }
            }
        }
        held = null;
        lost = true;
        // Released, not just dropped: a renewal still in flight (this one, or a background one) may yet be answered
        // renewed, and the lease would then live on, renewed in the background with no hold left to release it, and
        // no other holder ever. Released once that answer is in (the release waits for it), off this thread.
        RENEWALS.execute(() -> releaseDropped(l));
        return false;
    }

    private void releaseDropped(TreeLock l) {
        try {
            l.release();
        } catch (RuntimeException e) {
            // not answered: the lease ends by itself, no longer renewed
        }
    }

    /** Renews the held lease, for the current lease ({@code ttl == null}) or a new one. */
    boolean renew(@Nullable Duration ttl) {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("the current thread does not hold the lock at " + path);
        }
        TreeLock l = held;
        return l != null && (ttl == null ? l.renew() : l.renew(ttl));
    }

    /** True if no thread holds the lock and it was last used before {@code nanos} (System.nanoTime()). */
    boolean unusedSince(long nanos) {
        return !local.isLocked() && lastUsedNanos - nanos < 0;
    }

    private boolean acquireInterruptibly(Duration wait, Duration ttl) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        try {
            return acquire(wait, ttl);
        } catch (RuntimeException e) {
            if (interrupted(e)) {
                InterruptedException ie = new InterruptedException("interrupted while waiting for the lock at " + path);
                ie.initCause(e);
                throw ie;
            }
            throw e;
        }
    }

    /**
     * Whether {@code e} ended an acquisition because the thread was interrupted (the tree locks' wait, or the HTTP
     * client's, which may clear the flag and say so only in its exception); clears the flag.
     */
    private static boolean interrupted(RuntimeException e) {
        boolean flag = Thread.interrupted();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException
                    || (t.getMessage() != null && t.getMessage().contains("interrupted"))) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return flag;
    }

    private boolean acquire(Duration wait, Duration ttl) {
        AcquireResult<TreeLock> r = registry.treeLocks()
                .acquire(LockRequest.of(b -> b.path(path)
                        .mode(LockMode.EXCLUSIVE)
                        .ttl(ttl)
                        .maxWait(wait)
                        .autoRenew(registry.autoRenew())));
        if (r.acquired()) {
            held = r.lock().orElseThrow();
            lost = false;
            lastUsedNanos = System.nanoTime();
            return true;
        }
        return false;
    }

    @Override
    public String toString() {
        TreeLock l = held;
        return "EsrelLock[" + path + (l == null ? ", unlocked" : ", token " + l.token()) + "]";
    }
}
