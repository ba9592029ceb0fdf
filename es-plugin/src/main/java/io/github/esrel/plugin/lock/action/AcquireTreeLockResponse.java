package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.grant.Grant;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.xcontent.ToXContentObject;
import org.elasticsearch.xcontent.XContentBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The answer to an acquire, both outcomes being ordinary responses:
 * <pre>
 * 200 {"acquired": true, "index": "fs", "path": "/a/b/c.txt", "mode": "exclusive", "owner": "worker-7",
 *      "token": 1764504000000017, "expires_at": "2025-11-30T12:01:00.123Z", "expires_at_millis": 1764504060123,
 *      "bound_to": {"user": "alice", "realm": "default_file"}}            (bound_to only when bound to a user)
 * 409 {"acquired": false, "conflicts": [{"path": "/a", "mode": "exclusive", "owner": "worker-3",
 *      "expires_at": "2025-11-30T12:00:41.000Z"}]}
 * </pre>
 * The conflicts are the grants standing in the way, each named by its own path and mode; at most 100 (the
 * oldest first) when more stand in the way.
 */
public final class AcquireTreeLockResponse extends ActionResponse implements ToXContentObject {

    private final String index;

    @Nullable
    private final Grant grant;

    private final List<Grant> conflicts;

    private AcquireTreeLockResponse(String index, @Nullable Grant grant, List<Grant> conflicts) {
        this.index = Objects.requireNonNull(index, "index cannot be null");
        this.grant = grant;
        this.conflicts = List.copyOf(conflicts);
    }

    /**
     * The 200 answer: the lock was granted.
     *
     * @param index the concrete index (the lock namespace)
     * @param grant the new grant
     * @return a response with {@code "acquired": true}
     * @throws NullPointerException if {@code index} or {@code grant} is null
     */
    public static AcquireTreeLockResponse acquired(String index, @Nullable Grant grant) {
        return new AcquireTreeLockResponse(index, Objects.requireNonNull(grant, "grant cannot be null"), List.of());
    }

    /**
     * The 409 answer: live grants stand in the way (after the request's wait).
     *
     * @param index     the concrete index (the lock namespace)
     * @param conflicts the grants in the way; copied
     * @return a response with {@code "acquired": false}
     * @throws NullPointerException if {@code index} or {@code conflicts} is null
     */
    public static AcquireTreeLockResponse conflict(String index, List<Grant> conflicts) {
        return new AcquireTreeLockResponse(index, null, conflicts);
    }

    /**
     * Reads a response sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public AcquireTreeLockResponse(StreamInput in) throws IOException {
        index = in.readString();
        grant = in.readOptionalWriteable(Grant::readFrom);
        conflicts = in.readCollectionAsList(Grant::readFrom);
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeString(index);
        out.writeOptionalWriteable(grant);
        out.writeCollection(conflicts);
    }

    /**
     * Whether the lock was granted: the {@code acquired} field of the body.
     *
     * @return {@code true} if {@link #grant()} is set, {@code false} if {@link #conflicts()} says why not
     */
    public boolean acquired() {
        return grant != null;
    }

    /**
     * The concrete index (the lock namespace).
     *
     * @return the name of the index the target resolved to; shown as {@code index} only when acquired
     */
    public String index() {
        return index;
    }

    /**
     * The new grant, whose path, mode, owner, token and expiry the 200 body shows.
     *
     * @return the grant, or null if the lock was not acquired
     */
    public @Nullable Grant grant() {
        return grant;
    }

    /**
     * The live grants that stand in the way: the {@code conflicts} of the 409 body.
     *
     * @return the conflicting grants in table order; empty when acquired
     */
    public List<Grant> conflicts() {
        return conflicts;
    }

    /**
     * 200 when acquired, 409 when not.
     *
     * @return the HTTP status of the REST answer
     */
    public RestStatus status() {
        return acquired() ? RestStatus.OK : RestStatus.CONFLICT;
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject();
        builder.field("acquired", acquired());
        if (grant != null) {
            builder.field("index", index);
            builder.field("path", grant.path());
            builder.field("mode", grant.mode().jsonName());
            builder.field("owner", grant.owner());
            builder.field("token", grant.token());
            builder.field("expires_at", grant.expiresAt());
            builder.field("expires_at_millis", grant.expiresAtMillis());
            boundTo(builder, grant);
        } else {
            builder.startArray("conflicts");
            for (Grant c : conflicts) {
                builder.startObject()
                        .field("path", c.path())
                        .field("mode", c.mode().jsonName())
                        .field("owner", c.owner())
                        .field("expires_at", c.expiresAt())
                        .endObject();
            }
            builder.endArray();
        }
        return builder.endObject();
    }

    /** {@code "bound_to": {"user", "realm"}} for a grant bound to a user; nothing otherwise. */
    static void boundTo(XContentBuilder builder, Grant grant) throws IOException {
        if (grant.boundTo() != null) {
            builder.startObject("bound_to")
                    .field("user", grant.boundTo().name())
                    .field("realm", grant.boundTo().realm())
                    .endObject();
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AcquireTreeLockResponse r
                && index.equals(r.index)
                && Objects.equals(grant, r.grant)
                && conflicts.equals(r.conflicts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, grant, conflicts);
    }
}
