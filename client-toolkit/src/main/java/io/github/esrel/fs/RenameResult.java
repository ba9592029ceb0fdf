package io.github.esrel.fs;

import io.github.esrel.lock.LockConflict;
import java.util.List;

/**
 * What a rename did.
 *
 * @param status how it ended
 * @param moved files rewritten to their new path (all of them when {@link Status#DONE})
 * @param total files found below the source when the rename started
 * @param token the fencing token of the lock the rename ran under; 0 if no lock was obtained
 * @param conflicts the locks that refused the rename ({@link Status#LOCKED})
 * @param message a human-readable explanation
 */
public record RenameResult(
        Status status, long moved, long total, long token, List<LockConflict> conflicts, String message) {

    /** How a rename ended. */
    public enum Status {
        /** Every file was moved. */
        DONE,
        /** Another process holds a lock on the source or the target (see conflicts); nothing was moved. */
        LOCKED,
        /** Nothing to rename, or the target already exists; nothing was moved. */
        REFUSED,
        /**
         * The rename's lease ended while it ran and a newer lock holder wrote (its writes were refused by
         * fencing); {@code moved} files were moved before. Run it again to finish or undo.
         */
        FENCED
    }

    /**
     * Copies {@code conflicts}.
     *
     * @param status how it ended
     * @param moved files rewritten to their new path
     * @param total files found below the source when the rename started
     * @param token the fencing token of the lock the rename ran under; 0 if no lock was obtained
     * @param conflicts the locks that refused the rename; copied, must not be or contain {@code null}
     * @param message a human-readable explanation
     */
    public RenameResult {
        conflicts = List.copyOf(conflicts);
    }

    /**
     * Whether the rename completed.
     *
     * @return true if {@link #status()} is {@link Status#DONE}
     */
    public boolean done() {
        return status == Status.DONE;
    }
}
