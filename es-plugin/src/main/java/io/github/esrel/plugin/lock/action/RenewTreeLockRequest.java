package io.github.esrel.plugin.lock.action;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.action.ValidateActions;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.xcontent.XContentParser;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /{index}/_treelock/renew {"path", "owner", "token", "ttl"}}: the grant's lease ends {@code ttl}
 * from now (default 60 s), instead of when it was going to. Only a live grant can be renewed.
 */
public final class RenewTreeLockRequest extends HolderTreeLockRequest {

    /** A valid body, quoted in the messages for bodies that cannot be read. */
    public static final String EXAMPLE =
            "{\"path\": \"/a/b/c.txt\", \"owner\": \"worker-7\", \"token\": 17, \"ttl\": \"30s\"}";

    private static final Map<String, TreeLockBodyParser.Type> FIELDS =
            holderFields("ttl", TreeLockBodyParser.Type.STRING);

    @Nullable
    private final TimeValue ttl;

    /**
     * Creates a request; {@link #validate()} checks the path, owner, token and ttl.
     *
     * @param index the target index (or an alias of one), the lock namespace
     * @param path  the path of the grant
     * @param owner the owner of the grant; null if missing, which {@link #validate()} refuses
     * @param token the grant's fencing token; 0 stands for "missing" and is refused by {@link #validate}
     * @param ttl   the new lease, counted from when the node decides, or null for the default (60 s, or the
     *              node's maximum if shorter)
     * @throws NullPointerException if {@code index} is null
     */
    public RenewTreeLockRequest(
            String index, @Nullable String path, @Nullable String owner, long token, @Nullable TimeValue ttl) {
        super(index, path, owner, token);
        this.ttl = ttl;
    }

    /**
     * Reads a request sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public RenewTreeLockRequest(StreamInput in) throws IOException {
        super(in);
        ttl = in.readOptionalTimeValue();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeOptionalTimeValue(ttl);
    }

    /**
     * Reads the body strictly: an object with the string fields {@code path}, {@code owner} and {@code ttl}
     * and the integer {@code token}, nothing else.
     *
     * @param index  the target index from the URL
     * @param parser the parser over the request body
     * @return the request, not yet validated
     * @throws IOException if the body cannot be read; an {@code XContentParseException} (400) for malformed
     *     JSON, wrong types or unknown fields
     * @throws IllegalArgumentException if {@code token} is missing, or {@code ttl} is not a duration with a
     *     unit
     */
    public static RenewTreeLockRequest fromXContent(String index, XContentParser parser) throws IOException {
        Map<String, Object> body = TreeLockBodyParser.parse(parser, FIELDS, EXAMPLE);
        long token = requiredToken(body, EXAMPLE);
        String ttl = (String) body.get("ttl");
        return new RenewTreeLockRequest(
                index,
                (String) body.get("path"),
                (String) body.get("owner"),
                token,
                ttl == null ? null : TreeLockBodyParser.duration("ttl", ttl));
    }

    @Override
    public @Nullable ActionRequestValidationException validate() {
        ActionRequestValidationException e = super.validate();
        if (ttl != null && ttl.millis() <= 0) {
            e = ValidateActions.addValidationError("ttl must be at least 1ms, got [" + ttl.getStringRep() + "]", e);
        }
        return e;
    }

    /**
     * The new lease, or null for the default.
     *
     * @return the {@code ttl} of the body: the lease then ends this long from now
     */
    @Nullable
    public TimeValue ttl() {
        return ttl;
    }

    @Override
    public String getDescription() {
        return "renew " + describeGrant();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RenewTreeLockRequest r && sameGrant(r) && Objects.equals(ttl, r.ttl);
    }

    @Override
    public int hashCode() {
        return 31 * grantHash() + Objects.hashCode(ttl);
    }
}
