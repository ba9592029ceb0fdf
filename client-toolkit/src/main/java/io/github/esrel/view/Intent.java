package io.github.esrel.view;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A durable record, written to the state index <em>before</em> a source write, that the views it
 * affects must be rebuilt. Cleared once they are; a crash in between leaves it for
 * {@link MaterializedView#repair()}. Recorded create-only under an id of its own, and cleared by rewriting it as a
 * marker that keeps the id taken, so that a late copy of the recording request is refused (see
 * {@link MaterializedView}, "Requests applied twice, or late"):
 *
 * <pre>{@code
 * PUT esrel-views/_create/intent:photo-user:6f1c...
 * { "kind": "intent", "view": "photo-user", "target": "source", "id": "photo-17", "routing": null,
 *   "created_at": 1764489600000, "owner": "12345@host" }
 *
 * PUT esrel-views/_doc/intent:photo-user:6f1c...           (cleared; deleted after the intent retention)
 * { "kind": "cleared", ..., "cleared_at": 1764489600120 }
 * }</pre>
 *
 * @param id the intent document's id
 * @param target {@code SOURCE} (rebuild the view of one source document) or {@code PARENT} (rebuild
 *     the views of every source that points to the parent)
 * @param targetId the source or parent id
 * @param routing the source's routing, or {@code null}
 * @param createdAt when it was recorded
 * @param owner the process that recorded it
 */
public record Intent(
        String id, Target target, String targetId, @Nullable String routing, Instant createdAt, String owner) {

    /** What the intent covers. */
    public enum Target {
        /** Rebuild the view of one source document, {@link Intent#targetId()}. */
        SOURCE,
        /** Rebuild the views of every source that points to the parent {@link Intent#targetId()}. */
        PARENT
    }
}
