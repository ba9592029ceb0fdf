package io.github.esrel.lock;

import io.github.esrel.ExceptionTranslator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of an acquisition: either the held lock, or the live locks that stood in the way when
 * the wait ran out. A busy lock is an expected outcome, so it is a value, not an exception.
 *
 * <pre>{@code
 * AcquireResult<TreeLock> r = locks.acquire(LockRequest.exclusive("/clinton"));
 * if (r.acquired()) {
 *     try (TreeLock lock = r.lock().orElseThrow()) { ... }
 * } else {
 *     log.info("busy: {}", r.conflicts());
 * }
 * try (TreeLock lock = locks.acquire(request).orThrow()) { ... }   // busy becomes a TreeLockException (409)
 * }</pre>
 *
 * @param <L> the handle: {@link TreeLock} or {@link DocumentLocks}
 */
public final class AcquireResult<L> {

    private final @Nullable L lock;
    private final List<LockConflict> conflicts;
    private final String what;
    /** The provider's: turns the busy exception of {@link #orThrow()} into the caller framework's. */
    private final ExceptionTranslator translator;

    private AcquireResult(@Nullable L lock, List<LockConflict> conflicts, String what, ExceptionTranslator translator) {
        this.lock = lock;
        this.conflicts = List.copyOf(conflicts);
        this.what = what;
        this.translator = translator;
    }

    static <L> AcquireResult<L> acquired(L lock) {
        return new AcquireResult<>(
                Objects.requireNonNull(lock), List.of(), String.valueOf(lock), ExceptionTranslator.NONE);
    }

    static <L> AcquireResult<L> busy(String what, List<LockConflict> conflicts) {
        return busy(what, conflicts, ExceptionTranslator.NONE);
    }

    static <L> AcquireResult<L> busy(String what, List<LockConflict> conflicts, ExceptionTranslator translator) {
        return new AcquireResult<>(null, conflicts, what, Objects.requireNonNull(translator));
    }

    /**
     * True if the lock is held.
     *
     * @return true if acquired, false if busy
     */
    public boolean acquired() {
        return lock != null;
    }

    /**
     * The held lock; empty when busy. The caller must close it.
     *
     * @return the lock, or empty when busy
     */
    public Optional<L> lock() {
        return Optional.ofNullable(lock);
    }

    /**
     * The live locks in the way when the acquisition gave up; empty when acquired. May also be empty
     * when busy, if the holders released between the refusal and the read that names them.
     *
     * @return the conflicts, unmodifiable
     */
    public List<LockConflict> conflicts() {
        return conflicts;
    }

    /**
     * The held lock.
     *
     * @return the lock, never {@code null}; the caller must close it
     * @throws TreeLockException (status 409, with the {@link TreeLockException#conflicts() conflicts})
     *     when busy
     */
    public L orThrow() {
        if (lock == null) {
            TreeLockException busy = new TreeLockException(
                    "cannot lock " + what + ": " + (conflicts.isEmpty() ? "busy" : "held as " + conflicts),
                    409,
                    null,
                    conflicts);
            RuntimeException translated = translator.translate(busy);
            throw translated != null ? translated : busy; // a translator must not lose the exception
        }
        return lock;
    }

    @Override
    public String toString() {
        return lock != null ? "acquired " + lock : "busy " + what + " " + conflicts;
    }
}
