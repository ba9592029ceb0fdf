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
 * @param total child visits planned (see {@link Progress})
 * @param done child visits made
 * @param written children rewritten
 * @param upToDate children already up to date (not rewritten)
 * @param moved children deleted or re-parented during the job (left alone)
 * @param conflicts version conflicts met and resolved by re-reading
 * @param rejected 429 rejections met and retried
 * @param failed children not written, each reported to the listener
 * @param passes passes run (the main pass and catch-up passes)
 * @param failures the first failures (at most {@link Propagator.Builder#maxReportedFailures(int)}); all
 *     of them went to {@link PropagationListener#onFailure}
 * @param took wall time of this run
 */
public record PropagationResult(String jobId, String relation, String parentId, JobState state, long parentSeqNo,
                                long total, long done, long written, long upToDate, long moved, long conflicts,
                                long rejected, long failed, int passes, List<ChildFailure> failures, Duration took) {

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
        return "PropagationResult{" + jobId + " " + state + ", parent=" + parentId + "@" + parentSeqNo + ", done=" + done + "/"
            + total + ", written=" + written + ", upToDate=" + upToDate + ", moved=" + moved + ", conflicts=" + conflicts
            + ", rejected=" + rejected + ", failed=" + failed + ", passes=" + passes + ", took=" + took.toMillis() + "ms}";
    }
}
