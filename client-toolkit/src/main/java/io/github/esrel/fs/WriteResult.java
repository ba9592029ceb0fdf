package io.github.esrel.fs;

import io.github.esrel.lock.LockConflict;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a write did: the file as written, or why it was not.
 *
 * @param status how it ended
 * @param file the file as written ({@link Status#WRITTEN}), else {@code null}
 * @param conflicts the locks that refused the write ({@link Status#LOCKED}), else empty
 * @param message a human-readable explanation
 */
public record WriteResult(Status status, @Nullable FileDoc file, List<LockConflict> conflicts, String message) {

    /** How a write ended. */
    public enum Status {
        /** The file was written. */
        WRITTEN,
        /**
         * Another process held a lock on the path or a directory above it for longer than the write's lock wait
         * (see {@link #conflicts()}); nothing was written.
         */
        LOCKED
    }

    /**
     * Copies {@code conflicts}.
     *
     * @param status how it ended
     * @param file the file as written, or {@code null} when nothing was
     * @param conflicts the locks that refused the write; copied, must not be or contain {@code null}
     * @param message a human-readable explanation
     * @throws NullPointerException if {@code status}, {@code conflicts} or {@code message} is {@code null}
     */
    public WriteResult {
        Objects.requireNonNull(status, "status cannot be null");
        conflicts = List.copyOf(conflicts);
        Objects.requireNonNull(message, "message cannot be null");
    }

    static WriteResult written(FileDoc file) {
        return new WriteResult(Status.WRITTEN, file, List.of(), "written");
    }

    static WriteResult locked(List<LockConflict> conflicts) {
        return new WriteResult(Status.LOCKED, null, conflicts, "locked by " + conflicts);
    }

    /**
     * Whether the file was written.
     *
     * @return true if {@link #status()} is {@link Status#WRITTEN}
     */
    public boolean written() {
        return status == Status.WRITTEN;
    }

    /**
     * The file as written, for callers that treat a busy lock as an error.
     *
     * @return the file as written
     * @throws FsException when the write was refused by a lock; its message names the holders
     */
    public FileDoc orThrow() {
        if (status != Status.WRITTEN || file == null) { // a written result has its file
            throw new FsException("the write was refused: " + message, null);
        }
        return file;
    }
}
