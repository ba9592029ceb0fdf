package io.github.esrel.view;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a rebuild of some views did.
 *
 * @param requested views asked for
 * @param written views indexed (created or replaced) with a new version
 * @param deleted views deleted because their source is gone (with a version tombstone)
 * @param stale writes Elasticsearch refused because the view already had a newer version: a rebuild
 *     of a later snapshot won, which is the point (expected, not an error)
 * @param failed views not rebuilt (see {@code failures})
 * @param clockReads versions drawn from the clock (one per batch and validation round)
 * @param retries views whose sources changed between the two reads of a snapshot and were read again
 * @param failures the first failures
 * @param took wall time
 */
public record RebuildResult(
        long requested,
        long written,
        long deleted,
        long stale,
        long failed,
        long clockReads,
        long retries,
        List<ViewFailure> failures,
        Duration took) {

    /**
     * Copies {@code failures}.
     *
     * @throws NullPointerException if {@code failures} is {@code null}
     */
    public RebuildResult {
        failures = List.copyOf(failures);
    }

    static RebuildResult empty() {
        return new RebuildResult(0, 0, 0, 0, 0, 0, 0, List.of(), Duration.ZERO);
    }

    /**
     * Tells whether the rebuild left no view behind.
     *
     * @return {@code true} when every requested view is written, deleted or superseded by a newer
     *     one; {@code false} when {@link #failed()} is not 0
     */
    public boolean complete() {
        return failed == 0;
    }

    RebuildResult plus(RebuildResult o) {
        List<ViewFailure> f = new ArrayList<>(failures);
        for (ViewFailure x : o.failures) {
            if (f.size() < 100) {
                f.add(x);
            }
        }
        return new RebuildResult(
                requested + o.requested,
                written + o.written,
                deleted + o.deleted,
                stale + o.stale,
                failed + o.failed,
                clockReads + o.clockReads,
                retries + o.retries,
                f,
                took.plus(o.took));
    }

    RebuildResult took(Duration d) {
        return new RebuildResult(requested, written, deleted, stale, failed, clockReads, retries, failures, d);
    }
}
