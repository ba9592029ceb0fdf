package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.grant.Grant;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.xcontent.ToXContentObject;
import org.elasticsearch.xcontent.XContentBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The live grants of an index, one entry per locked path (sorted), its holders sorted by token:
 * <pre>
 * {"index": "fs", "locks": [
 *   {"path": "/a/b", "mode": "shared", "holders": [
 *     {"owner": "worker-1", "token": 1764504000000017, "expires_at": "2025-11-30T12:01:00.123Z", "expires_at_millis": 1764504060123},
 *     {"owner": "worker-2", "token": 1764504000000018, "expires_at": "...", "expires_at_millis": ...}]},
 *   {"path": "/c.txt", "mode": "exclusive", "holders": [...]}]}
 * </pre>
 * Only granted paths are listed; the shared locks each grant holds on its ancestors are implied. A holder bound
 * to a user also shows {@code "bound_to": {"user", "realm"}}. A page that more paths follow ends with
 * {@code "next": "<its last path>"}, the {@code after} of the next page.
 */
public final class ListTreeLocksResponse extends ActionResponse implements ToXContentObject {

    private final String index;
    private final List<Grant> grants;

    @Nullable
    private final String next;

    /**
     * Creates a response that lists every grant asked for.
     *
     * @param index  the concrete index (the lock namespace)
     * @param grants live grants sorted by path, then token; copied
     * @throws NullPointerException if {@code index} or {@code grants} is null
     */
    public ListTreeLocksResponse(String index, List<Grant> grants) {
        this(index, grants, null);
    }

    /**
     * Creates a response, a page that more may follow.
     *
     * @param index  the concrete index (the lock namespace)
     * @param grants live grants sorted by path, then token; copied
     * @param next   the last path of the page when more paths follow, else null
     * @throws NullPointerException if {@code index} or {@code grants} is null
     */
    public ListTreeLocksResponse(String index, List<Grant> grants, @Nullable String next) {
        this.index = Objects.requireNonNull(index, "index cannot be null");
        this.grants = List.copyOf(grants);
        this.next = next;
    }

    /**
     * Reads a response sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public ListTreeLocksResponse(StreamInput in) throws IOException {
        index = in.readString();
        grants = in.readCollectionAsList(Grant::readFrom);
        next = in.readOptionalString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeString(index);
        out.writeCollection(grants);
        out.writeOptionalString(next);
    }

    /**
     * Where the next page starts, when there is one.
     *
     * @return the last path of this page if more paths follow, else null
     */
    @Nullable
    public String next() {
        return next;
    }

    /**
     * The concrete index the target resolved to: the {@code index} field of the body.
     *
     * @return the index name
     */
    public String index() {
        return index;
    }

    /**
     * The live grants listed, which the body groups into one {@code locks} entry per path.
     *
     * @return the grants sorted by path, then token; empty if none
     */
    public List<Grant> grants() {
        return grants;
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject();
        builder.field("index", index);
        builder.startArray("locks");
        int i = 0;
        while (i < grants.size()) {
            Grant first = grants.get(i);
            builder.startObject();
            builder.field("path", first.path());
            // Grants on one path are all shared or a single exclusive one: they never conflict with each other.
            builder.field("mode", first.mode().jsonName());
            builder.startArray("holders");
            while (i < grants.size() && grants.get(i).path().equals(first.path())) {
                Grant g = grants.get(i++);
                builder.startObject()
                        .field("owner", g.owner())
                        .field("token", g.token())
                        .field("expires_at", g.expiresAt())
                        .field("expires_at_millis", g.expiresAtMillis());
                AcquireTreeLockResponse.boundTo(builder, g);
                builder.endObject();
            }
            builder.endArray();
            builder.endObject();
        }
        builder.endArray();
        if (next != null) {
            builder.field("next", next);
        }
        return builder.endObject();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ListTreeLocksResponse r
                && index.equals(r.index)
                && grants.equals(r.grants)
                && Objects.equals(next, r.next);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, grants, next);
    }
}
