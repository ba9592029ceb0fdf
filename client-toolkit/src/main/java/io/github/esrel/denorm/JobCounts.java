package io.github.esrel.denorm;

/**
 * How many children a propagation job has handled, and how: the one set of counts that its
 * {@link Progress}, its {@link Checkpoint} and its {@link PropagationResult} report. Counts are child visits:
 * a child rewritten again by a catch-up pass (because it appeared or the parent changed again during the
 * job) counts again, so {@code total} can grow while the job runs. A resumed job carries on from the counts
 * of its checkpoint.
 *
 * @param total children to handle as known so far; -1 before the first page
 * @param done children handled: written, already up to date, moved away, or failed
 * @param written children rewritten
 * @param upToDate children that already carried the parent's copies (not rewritten)
 * @param moved children deleted or given another parent while the job ran (left alone)
 * @param conflicts version conflicts met (a concurrent edit of the child; re-read and re-applied)
 * @param rejected 429 rejections met (retried after a backoff)
 * @param failed children that could not be written (each reported as a {@link ChildFailure})
 * @param passes passes started (the main pass and catch-up passes)
 */
public record JobCounts(
        long total,
        long done,
        long written,
        long upToDate,
        long moved,
        long conflicts,
        long rejected,
        long failed,
        int passes) {

    /** A job that has not read a page yet: nothing done, total unknown. */
    public static final JobCounts NONE = new JobCounts(-1, 0, 0, 0, 0, 0, 0, 0, 0);

    /**
     * {@code done / total} in [0, 1]; 0 while the total is unknown.
     *
     * @return the share of children handled; 1 when there are no children to handle (a total of 0)
     */
    public double fraction() {
        return total <= 0 ? (total == 0 ? 1.0 : 0.0) : Math.min(1.0, (double) done / total);
    }

    @Override
    public String toString() {
        return "done=" + done + "/" + total + ", written=" + written + ", upToDate=" + upToDate + ", moved=" + moved
                + ", conflicts=" + conflicts + ", rejected=" + rejected + ", failed=" + failed + ", passes=" + passes;
    }
}
