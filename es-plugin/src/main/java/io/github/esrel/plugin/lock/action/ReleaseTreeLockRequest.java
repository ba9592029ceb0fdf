package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.grant.GrantIds;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.xcontent.XContentParser;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /{index}/_treelock/release {"path", "owner", "token", "grant_id"}}: ends the grant with this path,
 * owner and token, and with it the shared locks it took on the ancestors.
 *
 * <p>With the {@code "grant_id"} the grant was acquired with ({@link GrantIds}), the same release sent again after
 * its answer was lost (to this node or another) is answered released, not 404, and a late copy of the acquire grants
 * nothing more. A release by {@code "grant_id"} without a {@code "token"} ends whatever grant that id acquired on
 * the path for the owner, and answers released whether or not there was one: a client whose acquire's outcome
 * stayed unknown sends it so that no grant is left that nobody knows about.
 */
public final class ReleaseTreeLockRequest extends HolderTreeLockRequest {

    /** A valid body, quoted in the messages for bodies that cannot be read. */
    public static final String EXAMPLE = "{\"path\": \"/a/b/c.txt\", \"owner\": \"worker-7\", \"token\": 17}";

    private static final Map<String, TreeLockBodyParser.Type> FIELDS =
            holderFields("grant_id", TreeLockBodyParser.Type.STRING);

    @Nullable
    private final String grantId;

    /**
     * Creates a request; {@link #validate()} checks the path, owner and token.
     *
     * @param index the target index (or an alias of one), the lock namespace
     * @param path  the path of the grant
     * @param owner the owner of the grant; null if missing, which {@link #validate()} refuses
     * @param token the grant's fencing token; 0 stands for "missing" and is refused by {@link #validate}
     * @throws NullPointerException if {@code index} is null
     */
    public ReleaseTreeLockRequest(String index, @Nullable String path, @Nullable String owner, long token) {
        this(index, path, owner, token, null);
    }

    /**
     * Creates a request; {@link #validate()} checks the path, owner, token and grant id.
     *
     * @param index   the target index (or an alias of one), the lock namespace
     * @param path    the path of the grant
     * @param owner   the owner of the grant; null if missing, which {@link #validate()} refuses
     * @param token   the grant's fencing token; 0 stands for "missing", refused by {@link #validate} unless there
     *                is a grant id
     * @param grantId the grant id the grant was acquired with, or null for none
     * @throws NullPointerException if {@code index} is null
     */
    public ReleaseTreeLockRequest(
            String index, @Nullable String path, @Nullable String owner, long token, @Nullable String grantId) {
        super(index, path, owner, token);
        this.grantId = grantId;
    }

    /**
     * Reads a request sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public ReleaseTreeLockRequest(StreamInput in) throws IOException {
        super(in);
        grantId = in.readOptionalString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeOptionalString(grantId);
    }

    /**
     * Reads the body strictly: an object with the string fields {@code path}, {@code owner} and {@code grant_id} and
     * the integer {@code token}, nothing else; {@code token} may be left out when {@code grant_id} is given.
     *
     * @param index  the target index from the URL
     * @param parser the parser over the request body
     * @return the request, not yet validated
     * @throws IOException if the body cannot be read; an {@code XContentParseException} (400) for malformed
     *     JSON, wrong types or unknown fields
     * @throws IllegalArgumentException if both {@code token} and {@code grant_id} are missing
     */
    public static ReleaseTreeLockRequest fromXContent(String index, XContentParser parser) throws IOException {
        Map<String, Object> body = TreeLockBodyParser.parse(parser, FIELDS, EXAMPLE);
        String grantId = (String) body.get("grant_id");
        long token = grantId != null && body.get("token") == null ? 0 : requiredToken(body, EXAMPLE);
        return new ReleaseTreeLockRequest(index, (String) body.get("path"), (String) body.get("owner"), token, grantId);
    }

    @Override
    public @Nullable ActionRequestValidationException validate() {
        return validateGrantId(grantId, super.validate());
    }

    @Override
    boolean tokenRequired() {
        return grantId == null;
    }

    /**
     * The grant id the grant was acquired with.
     *
     * @return the {@code grant_id} of the body, or null if it had none
     */
    public @Nullable String grantId() {
        return grantId;
    }

    @Override
    public String getDescription() {
        return "release " + describeGrant() + (grantId == null ? "" : " grant_id [" + grantId + "]");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReleaseTreeLockRequest r && sameGrant(r) && Objects.equals(grantId, r.grantId);
    }

    @Override
    public int hashCode() {
        return 31 * grantHash() + Objects.hashCode(grantId);
    }
}
