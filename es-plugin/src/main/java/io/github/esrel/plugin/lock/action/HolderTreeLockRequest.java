package io.github.esrel.plugin.lock.action;

import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.jspecify.annotations.Nullable;

/**
 * A request of the holder of a grant ({@link ReleaseTreeLockRequest}, {@link RenewTreeLockRequest}): it names the
 * grant by path, owner and the token acquire returned.
 */
public abstract class HolderTreeLockRequest extends TreeLockRequest {

    @Nullable
    private final String owner;

    private final long token;

    /**
     * @param index the target index (or an alias of one), the lock namespace
     * @param path  the path of the grant
     * @param owner the owner of the grant; null if missing, which {@link #validate()} refuses
     * @param token the grant's fencing token; 0 stands for "missing" and is refused by {@link #validate}
     */
    HolderTreeLockRequest(String index, @Nullable String path, @Nullable String owner, long token) {
        super(index, path);
        this.owner = owner;
        this.token = token;
    }

    HolderTreeLockRequest(StreamInput in) throws IOException {
        super(in);
        owner = in.readOptionalString();
        token = in.readLong();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeOptionalString(owner);
        out.writeLong(token);
    }

    /**
     * The fields of a holder request's body, in the order its messages name them: the grant's {@code path},
     * {@code owner} and {@code token}, then the request's own field.
     */
    static Map<String, TreeLockBodyParser.Type> holderFields(String own, TreeLockBodyParser.Type type) {
        Map<String, TreeLockBodyParser.Type> fields = new LinkedHashMap<>();
        fields.put("path", TreeLockBodyParser.Type.STRING);
        fields.put("owner", TreeLockBodyParser.Type.STRING);
        fields.put("token", TreeLockBodyParser.Type.INTEGER);
        fields.put(own, type);
        return Collections.unmodifiableMap(fields);
    }

    /** The body's {@code token}, which is required. */
    static long requiredToken(Map<String, Object> body, String example) {
        Long token = (Long) body.get("token");
        if (token == null) {
            throw new IllegalArgumentException(
                    "token is required: the fencing token acquire returned, e.g. " + example);
        }
        return token;
    }

    @Override
    public @Nullable ActionRequestValidationException validate() {
        ActionRequestValidationException e = validateOwner(owner, super.validate());
        return token == 0 && tokenRequired() == false ? e : validateToken(token, e);
    }

    /** Whether the request must name the grant by its token (a release by grant id need not). */
    boolean tokenRequired() {
        return true;
    }

    /**
     * The owner the grant was acquired for.
     *
     * @return the {@code owner} of the body; null if it had none (then {@link #validate()} fails)
     */
    public @Nullable String owner() {
        return owner;
    }

    /**
     * The fencing token acquire returned for the grant.
     *
     * @return the {@code token} of the body; positive once validated, or 0 for a release that names its grant by
     *     grant id alone
     */
    public long token() {
        return token;
    }

    /** What the description of each holder request says after its verb. */
    String describeGrant() {
        return "tree lock on [" + path() + "] in [" + index() + "] for [" + owner + "] token [" + token + "]";
    }

    /** Whether {@code other} names the same grant; subclasses add their own fields. */
    boolean sameGrant(HolderTreeLockRequest other) {
        return index().equals(other.index())
                && Objects.equals(path(), other.path())
                && Objects.equals(owner, other.owner)
                && token == other.token;
    }

    int grantHash() {
        return Objects.hash(index(), path(), owner, token);
    }
}
