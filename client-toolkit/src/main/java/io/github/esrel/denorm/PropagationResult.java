package io.github.esrel.denorm;

import java.time.Duration;
import java.util.List;

/**
 * What a propagation job did. Counts include those of earlier runs of the same job when it was
 * resumed from a checkpoint.
 *
 * @param jobId the job (also the id of its checkpoint document)
 * @param relation the relation's name
 * @param parentId the parent
 * @param state how it ended: {@code COMPLETED}, {@code COMPLETED_WITH_FAILURES}, {@code CANCELLED} or
 *     {@code PARENT_NOT_FOUND}
 * @param parentSeqNo the parent's {@code _seq_no} last read (the stamp the children now carry); -1 if
 *     the parent was never found
 * @param counts the children handled, over every run of the job
 * @param failures the first failures (at most {@link Propagator.Builder#maxReportedFailures(int)}); all
 *     of them went to {@link PropagationListener#onFailure}
 * @param took wall time of this run
 */
public record PropagationResult(
        String jobId,
        String relation,
        String parentId,
        JobState state,
        long parentSeqNo,
        JobCounts counts,
        List<ChildFailure> failures,
        Duration took) {

    /**
     * Creates a result; {@code failures} is copied into an unmodifiable list.
     *
     * @throws NullPointerException if {@code failures} is {@code null} or holds a {@code null}
     */
    public PropagationResult {
        failures = List.copyOf(failures);
    }

    /**
     * True when every child now carries the parent's copies.
     *
     * @return true only for state {@link JobState#COMPLETED}
     */
    public boolean complete() {
        return state == JobState.COMPLETED;
    }

    @Override
    public String toString() {
        return "PropagationResult{" + jobId + " " + state + ", parent=" + parentId + "@" + parentSeqNo + ", " + counts
                + ", took=" + took.toMillis() + "ms}";
    }
}
