package io.github.esrel.denorm;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The counts of one run of a job as its pages are written (concurrently, with several bulks in flight), the
 * failures it reports, and the parent version its children are stamped with. {@link #counts()} is the one
 * snapshot its progress, checkpoints and result are made of.
 */
final class Ledger {

    /** Failed ids remembered so that catch-up passes skip them: bounded, a job may fail on millions. */
    static final int MAX_REMEMBERED_FAILED_IDS = 100_000;

    /** How a child was handled without failing. */
    enum Kind {
        WRITTEN,
        UP_TO_DATE,
        MOVED
    }

    private final int maxReportedFailures;
    private final long doneBefore;
    private final long totalBefore;
    private final List<ChildFailure> failures = new ArrayList<>();
    private final Set<String> failedIds = new HashSet<>();
    private long total;
    private long done;
    private long written;
    private long upToDate;
    private long moved;
    private long conflicts;
    private long rejected;
    private long failed;
    private int passes;
    private long parentSeqNo;
    private long doneAtPassStart;
    private long matchedThisPass;
    private long[] sliceRead = new long[0];
    private boolean[] sliceFinished = new boolean[0];

    /**
     * @param carried the counts of earlier runs of the job (from its checkpoint), or {@link JobCounts#NONE}
     * @param parentSeqNo the parent version the earlier runs stamped, or -1
     */
    Ledger(JobCounts carried, long parentSeqNo, int maxReportedFailures) {
        this.maxReportedFailures = maxReportedFailures;
        this.total = carried.total();
        this.done = carried.done();
        this.written = carried.written();
        this.upToDate = carried.upToDate();
        this.moved = carried.moved();
        this.conflicts = carried.conflicts();
        this.rejected = carried.rejected();
        this.failed = carried.failed();
        this.passes = carried.passes();
        this.parentSeqNo = parentSeqNo;
        this.doneBefore = carried.done();
        this.totalBefore = carried.total();
    }

    synchronized void handled(Kind kind) {
        done++;
        switch (kind) {
            case WRITTEN -> written++;
            case UP_TO_DATE -> upToDate++;
            case MOVED -> moved++;
        }
    }

    /** Counts a child that could not be written; returns the failure to report. */
    synchronized ChildFailure fail(String id, @Nullable String routing, int status, String reason) {
        ChildFailure f = new ChildFailure(id, routing, status, reason);
        done++;
        failed++;
        if (failures.size() < maxReportedFailures) {
            failures.add(f);
        }
        if (failedIds.size() < MAX_REMEMBERED_FAILED_IDS) {
            failedIds.add(id);
        }
        return f;
    }

    synchronized void conflict() {
        conflicts++;
    }

    synchronized void rejected(int n) {
        rejected += n;
    }

    /** A pass starts, read with {@code slices} slices. */
    synchronized void passStarted(int slices) {
        passes++;
        doneAtPassStart = done;
        matchedThisPass = 0;
        sliceRead = new long[slices];
        sliceFinished = new boolean[slices];
    }

    /**
     * The first page of each slice of a pass says how many children the slice matches: more to handle. A resumed job's
     * first pass does not see the children that bulks in flight at the crash wrote (they are stamped) although its
     * checkpoint did not count them: its total stays at least the one the job started with.
     */
    synchronized void matched(int pass, long matches) {
        matchedThisPass += matches;
        total = pass == 1 ? Math.max(totalBefore, doneAtPassStart + matchedThisPass) : total + matches;
    }

    /** A slice handed {@code n} children of its page to the writer. */
    synchronized void sliceRead(int slice, int n) {
        sliceRead[slice] += n;
    }

    /** A slice read its last page of the pass. */
    synchronized void sliceFinished(int slice) {
        sliceFinished[slice] = true;
    }

    /** Where each slice of the current pass stands, for the checkpoint. */
    synchronized List<Checkpoint.Slice> slices() {
        List<Checkpoint.Slice> out = new ArrayList<>(sliceRead.length);
        for (int i = 0; i < sliceRead.length; i++) {
            out.add(new Checkpoint.Slice(i, sliceRead[i], sliceFinished[i]));
        }
        return out;
    }

    /** Children left out of a page (they failed in an earlier pass) are not to handle after all. */
    synchronized void skipped(int n) {
        total -= n;
    }

    /** At the end nothing is left to handle: the total is what was done. */
    synchronized void settle() {
        if (total < done) {
            total = done;
        }
    }

    /** The newest parent seq_no read (pages written concurrently may read the parent out of order). */
    synchronized void sawParent(long seqNo) {
        parentSeqNo = Math.max(parentSeqNo, seqNo);
    }

    synchronized long parentSeqNo() {
        return parentSeqNo;
    }

    synchronized long failed() {
        return failed;
    }

    /** A copy: filters the next pass while writes may still add failures. */
    synchronized Set<String> failedSoFar() {
        return Set.copyOf(failedIds);
    }

    synchronized List<ChildFailure> failures() {
        return List.copyOf(failures);
    }

    /** Children handled by this run (not the earlier ones), for its rate. */
    synchronized long doneThisRun() {
        return done - doneBefore;
    }

    /** The counts now. */
    synchronized JobCounts counts() {
        return new JobCounts(total, done, written, upToDate, moved, conflicts, rejected, failed, passes);
    }

    /** The counts for a checkpoint: a total never below what is done, so that a resume starts from a sane one. */
    synchronized JobCounts checkpointCounts() {
        return new JobCounts(
                Math.max(total, done), done, written, upToDate, moved, conflicts, rejected, failed, passes);
    }
}
