package io.github.esrel.denorm;

/** Where a propagation job stands, as stored in its checkpoint and reported in its result. */
public enum JobState {
    /** Running, or crashed while running (its checkpoint's heartbeat then stops moving). */
    RUNNING,
    /** Every child of the parent carries the parent's current copies. */
    COMPLETED,
    /** Done, but some children could not be written; each was reported ({@link ChildFailure}). */
    COMPLETED_WITH_FAILURES,
    /** Stopped by {@link PropagationJob#cancel()} (or an interrupt); resumable. */
    CANCELLED,
    /** The parent does not exist (or was deleted while the job ran); nothing more was written. */
    PARENT_NOT_FOUND,
    /** Stopped by a failure of the whole job (see the checkpoint's error); resumable. */
    FAILED;

    /**
     * True for the states a job ends in without having to be resumed.
     *
     * @return true for {@code COMPLETED}, {@code COMPLETED_WITH_FAILURES} and {@code PARENT_NOT_FOUND};
     *     false for {@code RUNNING}, {@code CANCELLED} and {@code FAILED}
     */
    public boolean finished() {
        return this == COMPLETED || this == COMPLETED_WITH_FAILURES || this == PARENT_NOT_FOUND;
    }
}
