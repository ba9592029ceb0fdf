package io.github.esrel.routing;

import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * How far a duplicate-id scan is, in the unit of its current phase: documents while it reads the index,
 * partitions while it counts them, ids while it reads the duplicated ids back. Within a phase {@code done} never
 * decreases, and the last progress of a phase has {@code done == total}.
 *
 * @param index the index being scanned
 * @param phase what the scan is doing
 * @param done units of the phase finished
 * @param total units of the phase known so far: the snapshot's document count while reading; while counting, the
 *     partitions known (a partition split again adds some)
 * @param elapsed time since the phase started
 * @param perSecond units of the phase finished per second
 * @param eta estimated time to finish the phase, or {@code null} when unknown
 */
public record ScanProgress(
        String index,
        Phase phase,
        long done,
        long total,
        Duration elapsed,
        double perSecond,
        @Nullable Duration eta) {

    /** The phases of a scan, in order. */
    public enum Phase {
        /** Reading {@code _id} and {@code _index} of every document; the unit is a document. */
        READ,
        /** Counting the fingerprints of one partition at a time; the unit is a partition. */
        COUNT,
        /** Reading the duplicated ids back with their copies; the unit is an id. */
        VERIFY
    }

    /**
     * {@code done / total} in [0, 1].
     *
     * @return the share of the phase done; 1 when the phase has nothing to do (a total of 0)
     */
    public double fraction() {
        return total <= 0 ? 1.0 : Math.min(1.0, (double) done / total);
    }

    /**
     * A one-line progress bar: {@code READ [#########...........]  45%  4500/10000  31,200/s  ETA 2s}; the ETA
     * is left out when unknown.
     *
     * @param width the number of characters between the brackets, at least 0
     * @return the bar, without a line separator
     */
    public String bar(int width) {
        int filled = (int) Math.round(fraction() * width);
        StringBuilder sb = new StringBuilder(width + 60).append(phase).append(" [");
        for (int i = 0; i < width; i++) {
            sb.append(i < filled ? '#' : '.');
        }
        sb.append("] ")
                .append(String.format(
                        Locale.ROOT, "%3d%%  %d/%d  %,.0f/s", Math.round(fraction() * 100), done, total, perSecond));
        if (eta != null) {
            sb.append("  ETA ").append(eta.toSeconds()).append('s');
        }
        return sb.toString();
    }
}
