package io.github.esrel.plugin.lock;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.elasticsearch.core.Nullable;
import org.elasticsearch.xcontent.XContentBuilder;

/**
 * The head document of a namespace in the lock index (its id is the namespace): the one document whose
 * compare-and-set orders every decision of the namespace, holding only the changes of the round that wrote it.
 * The grants themselves are one document each ({@link GrantStore}).
 *
 * <p>It keeps the field names of the one-document table it replaces ({@code last_token}, {@code grants}) and
 * stores in {@code grants} a single {@link #FENCE}: an exclusive grant on the root that never expires. A node
 * still running a plugin that reads the whole table from this document (a rolling upgrade) therefore sees every
 * path locked and grants nothing in a namespace the new store has taken over, instead of an empty table.
 *
 * @param round       the version of the grant documents this round's changes are written with: strictly
 *                    increasing, time-based as fencing tokens are, so it keeps increasing if the lock index is lost
 * @param writeId     random, unique to this write: a node's cached table is current only if it is this one
 * @param prevWriteId the {@code writeId} of the head this one replaced, null for the first
 * @param changes     what this round changed, not yet (or not certainly) in the grant documents
 */
record LockHead(long round, String writeId, @Nullable String prevWriteId, LockState.Changes changes) {

    /** The value of {@code kind} that tells a head from a one-document table and from a grant document. */
    static final String KIND = "head";

    /** What a node reading the whole table from this document sees: everything locked. */
    static final Grant FENCE = new Grant(
            TreePath.ROOT,
            LockMode.EXCLUSIVE,
            "esrel: this namespace's locks are kept per grant by a newer esrel plugin; upgrade this node",
            0,
            Long.MAX_VALUE,
            0);

    LockHead {
        Objects.requireNonNull(writeId, "writeId cannot be null");
        Objects.requireNonNull(changes, "changes cannot be null");
    }

    /** Whether {@code source} is a head document (else it is a one-document table of an older plugin). */
    static boolean isHead(Map<String, Object> source) {
        return KIND.equals(source.get("kind"));
    }

    XContentBuilder toXContent(XContentBuilder builder, String namespace, long now) throws IOException {
        builder.startObject();
        builder.field("kind", KIND);
        builder.field("namespace", namespace);
        builder.field("round", round);
        builder.field("write_id", writeId);
        if (prevWriteId != null) {
            builder.field("prev_write_id", prevWriteId);
        }
        builder.field("last_token", changes.lastToken());
        builder.field("updated_at", now);
        builder.startArray("grants");
        LockTable.writeGrant(builder, FENCE);
        builder.endArray();
        builder.startObject("changes");
        builder.startArray("put");
        for (Grant g : changes.put()) {
            LockTable.writeGrant(builder, g);
        }
        builder.endArray();
        builder.startArray("removed");
        for (long token : changes.removed()) {
            builder.value(token);
        }
        builder.endArray();
        builder.endObject();
        return builder.endObject();
    }

    /**
     * Reads a head document.
     *
     * @throws IllegalStateException if it is not one (only the plugin writes the lock index)
     */
    static LockHead fromSource(Map<String, Object> source) {
        try {
            Map<?, ?> changes = (Map<?, ?>) Objects.requireNonNull(source.get("changes"), "changes");
            List<Grant> put = new ArrayList<>();
            for (Object g : (List<?>) changes.get("put")) {
                put.add(LockTable.readGrant(g));
            }
            List<Long> removed = new ArrayList<>();
            for (Object token : (List<?>) changes.get("removed")) {
                removed.add(((Number) token).longValue());
            }
            long lastToken = ((Number) Objects.requireNonNull(source.get("last_token"), "last_token")).longValue();
            return new LockHead(
                    ((Number) Objects.requireNonNull(source.get("round"), "round")).longValue(),
                    (String) Objects.requireNonNull(source.get("write_id"), "write_id"),
                    (String) source.get("prev_write_id"),
                    new LockState.Changes(lastToken, put, removed));
        } catch (RuntimeException e) {
            throw new IllegalStateException("the lock head document is corrupt: " + e.getMessage(), e);
        }
    }
}
