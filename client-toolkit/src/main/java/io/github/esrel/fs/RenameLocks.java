package io.github.esrel.fs;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockConflict;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The exclusive locks of a rename's two paths, taken together: a rename runs only while it holds both, and never
 * waits while it holds one.
 */
final class RenameLocks {

    private final TreeLocks locks;
    /** How long a rename waits for both. */
    private final Duration wait;

    RenameLocks(TreeLocks locks, Duration wait) {
        this.locks = locks;
        this.wait = wait;
    }

    /** What runs under both locks. */
    interface LockedAction {
        /** @param held true while both leases are still held, as far as this process knows */
        RenameResult run(long token, BooleanSupplier held) throws IOException;
    }

    /**
     * Runs the action under exclusive locks on both paths, waiting up to the rename's lock wait for both. It never
     * waits while holding one of them (no deadlock with a rename the other way round, no path held idle): it
     * waits for one path holding nothing, tries the other at once, and if that one is busy releases the first and
     * waits for the busy one next, until both are held or the wait is over.
     */
    RenameResult run(TreePath a, TreePath b, LockedAction action) {
        long deadline = System.nanoTime() + wait.toNanos();
        TreePath waitFor = a.compareTo(b) <= 0 ? a : b;
        TreePath thenTry = waitFor == a ? b : a;
        while (true) {
            AcquireResult<TreeLock> waited = locks.acquire(exclusive(waitFor, left(deadline)));
            if (!waited.acquired()) {
                return locked(waited.conflicts());
            }
            TreeLock held = waited.orThrow();
            AcquireResult<TreeLock> tried;
            try {
                tried = locks.acquire(exclusive(thenTry, Duration.ZERO));
            } catch (RuntimeException e) {
                held.release();
                throw e;
            }
            if (tried.acquired()) {
                TreeLock other = tried.orThrow();
                try {
                    // With namespace-wide tokens the later grant carries the larger one; fence with it.
                    return action.run(Math.max(held.token(), other.token()), () -> held.isHeld() && other.isHeld());
                } catch (IOException | ElasticsearchException e) {
                    throw new FsException("rename " + a + " -> " + b + " failed: " + e.getMessage(), e);
                } finally {
                    // Released, not closed: a lease lost meanwhile is already in the result (FENCED, when a newer
                    // holder's writes won), not a reason to throw the result away.
                    releaseBoth(other, held);
                }
            }
            held.release();
            if (left(deadline).isZero()) {
                return locked(tried.conflicts());
            }
            TreePath busy = thenTry;
            thenTry = waitFor;
            waitFor = busy;
        }
    }

    private static void releaseBoth(TreeLock first, TreeLock second) {
        try {
            first.release();
        } finally {
            second.release();
        }
    }

    /** An exclusive lock of {@code path}, waiting up to {@code maxWait}. */
    static LockRequest exclusive(TreePath path, Duration maxWait) {
        return LockRequest.of(l -> l.path(path).mode(LockMode.EXCLUSIVE).maxWait(maxWait));
    }

    private static Duration left(long deadlineNanos) {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    private static RenameResult locked(List<LockConflict> conflicts) {
        return new RenameResult(RenameResult.Status.LOCKED, 0, 0, 0, conflicts, "locked by " + conflicts);
    }
}
