package io.github.esrel.denorm;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The durable state of a propagation job, one document per job in the checkpoint index (default
 * {@code esrel-propagation}), written when the job starts, as it progresses (at most once per
 * {@link Propagator.Builder#checkpointInterval}) and when it ends:
 *
 * <pre>{@code
 * PUT esrel-propagation/_doc/post-author:42:5f1c2a9e?version=12&version_type=external
 * { "relation": "post-author", "parent_id": "42", "state": "RUNNING", "owner": "12345@host:9c1e",
 *   "parent_seq_no": 17, "total": 100000, "done": 35000, "written": 34990, "up_to_date": 10, "moved": 0,
 *   "conflicts": 3, "rejected": 0, "failed": 0, "passes": 1,
 *   "started_at": 1764489600000, "updated_at": 1764489611000, "error": null,
 *   "slices": [{"id": 0, "read": 18000, "finished": false}, {"id": 1, "read": 17000, "finished": false}] }
 * }</pre>
 *
 * A job whose state stays {@code RUNNING} while {@code updated_at} (its heartbeat) stops moving has
 * crashed; {@link Propagator#resumeUnfinished()} takes it over. Every write of the document carries a version above
 * the one before it ({@code version_type=external}; a claim writes the stored version plus one): a copy of an earlier
 * write applied late (resent, or run by a node that was frozen) is refused, so it can neither set a finished job back
 * to {@code RUNNING} nor put back the owner of a job another process claimed, and a run whose job was claimed by
 * another process learns it at its next checkpoint and stops.
 *
 * <p>Counts ({@link JobCounts}) are child visits, summed over every run of the job.
 *
 * <p>{@code slices} shows where each slice of the current pass stands ({@link Propagator.Builder#slices}).
 * A resumed job does not need it to find its place: a child brought up to date carries the parent's
 * seq_no as its stamp, so every slice of the resumed job reads exactly its children not yet done, whatever
 * the number of slices then. This is also why a checkpoint written before slices existed (no
 * {@code slices} field) resumes as it always did.
 *
 * @param jobId the job's id, also the id of this document ({@code relation:parentId:random})
 * @param relation the name of the {@link Relation} the job propagates
 * @param parentId the parent whose fields are propagated
 * @param state where the job stands
 * @param owner the {@link Propagator#owner()} of the propagator that runs the job, or ran it last
 * @param parentSeqNo the parent's {@code _seq_no} last read (the stamp written children carry); -1 before
 *     the parent was found
 * @param counts the children handled so far; {@code total} never less than {@code done}
 * @param startedAt when the job first started; kept when it is resumed
 * @param updatedAt when this checkpoint was written: the job's heartbeat
 * @param error why the job failed as a whole, for {@code FAILED}; {@code null} otherwise
 * @param slices each slice of the current pass, by id; empty before the first pass, and in checkpoints
 *     written before slices existed
 */
public record Checkpoint(
        String jobId,
        String relation,
        String parentId,
        JobState state,
        String owner,
        long parentSeqNo,
        JobCounts counts,
        Instant startedAt,
        Instant updatedAt,
        @Nullable String error,
        List<Slice> slices) {

    /**
     * Creates a checkpoint; {@code slices} is copied into an unmodifiable list.
     *
     * @throws NullPointerException if {@code slices} is {@code null} or holds a {@code null}
     */
    public Checkpoint {
        slices = List.copyOf(slices);
    }

    /**
     * Where one slice of a job's pass stands: slice {@code id} of {@code slices().size()}, as Elasticsearch's
     * sliced search divides the children (one slice per shard when there are no more slices than shards).
     *
     * @param id the slice, from 0 to the number of slices - 1
     * @param read children read from this slice in the current pass and handed to the writer
     * @param finished whether this slice has read its last child of the current pass
     */
    public record Slice(int id, long read, boolean finished) {}
}
