package io.github.esrel.denorm;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How far a propagation job is: its {@link JobCounts}, its rate and when it should end.
 *
 * @param jobId the job
 * @param parentId the parent whose fields are propagated
 * @param pass 1 for the main pass, 2+ for catch-up passes
 * @param counts the children handled so far
 * @param elapsed time since this run started
 * @param docsPerSecond children handled per second by this run
 * @param eta estimated time to finish, or {@code null} when unknown
 */
public record Progress(
        String jobId,
        String parentId,
        int pass,
        JobCounts counts,
        Duration elapsed,
        double docsPerSecond,
        @Nullable Duration eta) {

    /**
     * {@link JobCounts#fraction()}.
     *
     * @return the share of children handled; 1 when there are no children to handle (a total of 0)
     */
    public double fraction() {
        return counts.fraction();
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
        sb.append("] ")
                .append(String.format(
                        java.util.Locale.ROOT,
                        "%3d%%  %d/%s  %,.0f docs/s",
                        Math.round(fraction() * 100),
                        counts.done(),
                        counts.total() < 0 ? "?" : String.valueOf(counts.total()),
                        docsPerSecond));
        if (eta != null) {
            sb.append("  ETA ").append(eta.toSeconds()).append('s');
        }
        return sb.toString();
    }
}
