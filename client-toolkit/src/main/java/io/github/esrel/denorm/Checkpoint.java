package io.github.esrel.denorm;

import java.time.Instant;

/**
 * The durable state of a propagation job, one document per job in the checkpoint index (default
 * {@code esrel-propagation}), written when the job starts, as it progresses (at most once per
 * {@link Propagator.Builder#checkpointInterval}) and when it ends:
 *
 * <pre>{@code
 * PUT esrel-propagation/_doc/post-author:42:5f1c2a9e
 * { "relation": "post-author", "parent_id": "42", "state": "RUNNING", "owner": "12345@host:9c1e",
 *   "parent_seq_no": 17, "total": 100000, "done": 35000, "written": 34990, "up_to_date": 10, "moved": 0,
 *   "conflicts": 3, "rejected": 0, "failed": 0, "passes": 1,
 *   "started_at": 1764489600000, "updated_at": 1764489611000, "error": null }
 * }</pre>
 *
 * A job whose state stays {@code RUNNING} while {@code updated_at} (its heartbeat) stops moving has
 * crashed; {@link Propagator#resumeUnfinished()} takes it over.
 */
public record Checkpoint(String jobId, String relation, String parentId, JobState state, String owner, long parentSeqNo,
                         long total, long done, long written, long upToDate, long moved, long conflicts, long rejected,
                         long failed, int passes, Instant startedAt, Instant updatedAt, String error) {
}
