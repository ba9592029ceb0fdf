package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.elasticsearch.xcontent.XContentBuilder;
import org.jspecify.annotations.Nullable;

/**
 * A namespace's whole lock table in one document, as esrel 0.1 stored it and the table store ({@code
 * esrel.treelock.store: table}) still does: every grant and the last fencing token issued. The grant store reads it
 * to take such a table over on its first change (the upgrade from the table store), and its heads keep the fields
 * {@code last_token} and {@code grants} so that a plugin reading this document from a head sees every path locked
 * ({@link LockHead}).
 *
 * <p>Stored as
 * <pre>
 * {"namespace": "fs", "last_token": 1764504000000017, "updated_at": 1764504000123,
 *  "grants": [{"path": "/a/b", "mode": "exclusive", "owner": "worker-7", "token": 1764504000000017,
 *              "expires_at": 1764504060123, "nonce": -4102567348899437101}]}
 * </pre>
 * A grant bound to a user also stores {@code "bound_user"} and {@code "bound_realm"}. The grant ids released lately
 * ({@link GrantIds}) are stored as {@code "changes": {"released": [{"nonce": ..., "token": ..., "until": ...}]}}, in an
 * object the lock index does not index (so its mappings need no change), which a plugin that does not know them
 * ignores and drops on its next write.
 *
 * @param lastToken the last fencing token issued, 0 if none
 * @param grants    the stored grants, live or not
 * @param released  the released grant ids remembered, oldest first
 */
public record TableDocument(long lastToken, List<Grant> grants, List<ReleasedId> released) {

    /**
     * Copies the lists, keeping the newest {@link GrantIds#MAX_REMEMBERED} released grant ids.
     *
     * @throws IllegalArgumentException if {@code lastToken} is negative
     * @throws NullPointerException     if {@code grants} or {@code released} is or contains {@code null}
     */
    public TableDocument {
        if (lastToken < 0) {
            throw new IllegalArgumentException("last_token must not be negative, got " + lastToken);
        }
        grants = List.copyOf(grants);
        released = List.copyOf(
                released.size() > GrantIds.MAX_REMEMBERED
                        ? released.subList(released.size() - GrantIds.MAX_REMEMBERED, released.size())
                        : released);
    }

    /**
     * The document of the table {@code state} describes: its grants, live or not, its last token and the released
     * grant ids it remembers at {@code now}.
     *
     * @param state a table as a round decided it
     * @param now   the current time, epoch milliseconds
     * @return the document to store
     */
    public static TableDocument of(LockState state, long now) {
        return new TableDocument(state.lastToken(), state.grants(), state.releasedIds(now));
    }

    /**
     * The table as the decisions see it: indexed, without the grants expired at {@code now} (they are absent for
     * every decision anyway; the next write leaves them out, as the table always pruned them on a write).
     *
     * @param now the current time, epoch milliseconds
     * @return a view of the table with no changes decided yet
     */
    public LockState state(long now) {
        LockIndex index = index();
        index.pruneExpired(now);
        return LockState.of(index);
    }

    /** The table, indexed, expired grants included. */
    LockIndex index() {
        return new LockIndex(lastToken, grants, released);
    }

    /**
     * Writes the stored document (see the class comment), every grant included.
     *
     * @param builder   the builder to write the document to
     * @param namespace the index the table belongs to, stored as {@code namespace}
     * @param now       the time of the write, epoch milliseconds, stored as {@code updated_at}
     * @return {@code builder}
     * @throws IOException if the builder fails to write
     */
    public XContentBuilder toXContent(XContentBuilder builder, String namespace, long now) throws IOException {
        builder.startObject();
        builder.field("namespace", namespace);
        builder.field("last_token", lastToken);
        builder.field("updated_at", now);
        builder.startArray("grants");
        for (Grant g : grants) {
            GrantJson.write(builder, g);
        }
        builder.endArray();
        if (released.isEmpty() == false) {
            builder.startObject("changes").startArray("released");
            for (ReleasedId r : released) {
                r.toXContent(builder);
            }
            builder.endArray().endObject();
        }
        return builder.endObject();
    }

    /**
     * Reads the stored document.
     *
     * @param source the document's source, as a map
     * @return the table the document holds
     * @throws IllegalStateException if it is not a lock table (only the plugin writes the lock index)
     */
    public static TableDocument fromSource(@Nullable Map<String, Object> source) {
        try {
            Map<String, Object> doc = Objects.requireNonNull(source, "no source");
            long lastToken = ((Number) Objects.requireNonNull(doc.get("last_token"), "last_token")).longValue();
            List<?> stored = (List<?>) Objects.requireNonNull(doc.get("grants"), "grants");
            List<Grant> grants = new ArrayList<>(stored.size());
            for (Object o : stored) {
                grants.add(GrantJson.read(o));
            }
            List<ReleasedId> released = new ArrayList<>();
            if (doc.get("changes") instanceof Map<?, ?> changes && changes.get("released") instanceof List<?> ids) {
                for (Object o : ids) {
                    released.add(ReleasedId.fromSource(o));
                }
            }
            return new TableDocument(lastToken, grants, released);
        } catch (RuntimeException e) {
            throw new IllegalStateException("the lock table document is corrupt: " + e.getMessage(), e);
        }
    }
}
