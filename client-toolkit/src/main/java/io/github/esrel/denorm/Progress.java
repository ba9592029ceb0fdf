package io.github.esrel.denorm;

import java.time.Duration;

/**
 * How far a propagation job is. Counts are child visits: a child rewritten again by a catch-up pass
 * (because it appeared or the parent changed again during the job) counts again, so {@code total}
 * can grow while the job runs.
 *
 * @param jobId the job
 * @param parentId the parent whose fields are propagated
 * @param pass 1 for the main pass, 2+ for catch-up passes
 * @param done children handled: written, already up to date, moved away, or failed
 * @param total children to handle as known so far (-1 before the first page)
 * @param written children rewritten
 * @param upToDate children that already carried the parent's copies (not rewritten)
 * @param moved children that were deleted or given another parent while the job ran (left alone)
 * @param conflicts version conflicts met (a concurrent edit of the child; re-read and re-applied)
 * @param rejected 429 rejections met (retried after a backoff)
 * @param failed children that could not be written (each reported as a {@link ChildFailure})
 * @param elapsed time since this run started
 * @param docsPerSecond children handled per second by this run
 * @param eta estimated time to finish, or {@code null} when unknown
 */
public record Progress(String jobId, String parentId, int pass, long done, long total, long written, long upToDate,
                       long moved, long conflicts, long rejected, long failed, Duration elapsed, double docsPerSecond,
                       Duration eta) {

    /**
     * {@code done / total} in [0, 1]; 0 while the total is unknown.
     *
     * @return the share of children handled; 1 when there are no children to handle (a total of 0)
     */
    public double fraction() {
        return total <= 0 ? (total == 0 ? 1.0 : 0.0) : Math.min(1.0, (double) done / total);
    }

    /**
     * A one-line progress bar: {@code [#########...........]  45%  4500/10000  3,120 docs/s  ETA 2s}.
     * An unknown total shows as {@code ?}; the ETA is left out when unknown.
     *
     * @param width the number of characters between the brackets, at least 0
     * @return the bar, without a line separator
     */
    public String bar(int width) {
        int filled = (int) Math.round(fraction() * width);
        StringBuilder sb = new StringBuilder(width + 60).append('[');
        for (int i = 0; i < width; i++) {
            sb.append(i < filled ? '#' : '.');
        }
        sb.append("] ").append(String.format(java.util.Locale.ROOT, "%3d%%  %d/%s  %,.0f docs/s", Math.round(fraction() * 100),
            done, total < 0 ? "?" : String.valueOf(total), docsPerSecond));
        if (eta != null) {
            sb.append("  ETA ").append(eta.toSeconds()).append('s');
        }
        return sb.toString();
    }
}
