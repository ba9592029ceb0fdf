package io.github.esrel.plugin.lock.action;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.xcontent.XContentParser;

/**
 * {@code POST /{index}/_treelock/release {"path", "owner", "token"}}: ends the grant with this path, owner and
 * token, and with it the shared locks it took on the ancestors.
 */
public final class ReleaseTreeLockRequest extends HolderTreeLockRequest {

    /** A valid body, quoted in the messages for bodies that cannot be read. */
    public static final String EXAMPLE = "{\"path\": \"/a/b/c.txt\", \"owner\": \"worker-7\", \"token\": 17}";

    private static final Map<String, TreeLockBodyParser.Type> FIELDS = new LinkedHashMap<>();

    static {
        FIELDS.put("path", TreeLockBodyParser.Type.STRING);
        FIELDS.put("owner", TreeLockBodyParser.Type.STRING);
        FIELDS.put("token", TreeLockBodyParser.Type.INTEGER);
    }

    /**
     * Creates a request; {@link #validate()} checks the path, owner and token.
     *
     * @param index the target index (or an alias of one), the lock namespace
     * @param path  the path of the grant
     * @param owner the owner of the grant; null if missing, which {@link #validate()} refuses
     * @param token the grant's fencing token; 0 stands for "missing" and is refused by {@link #validate}
     * @throws NullPointerException if {@code index} is null
     */
    public ReleaseTreeLockRequest(String index, String path, String owner, long token) {
        super(index, path, owner, token);
    }

    /**
     * Reads a request sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public ReleaseTreeLockRequest(StreamInput in) throws IOException {
        super(in);
    }

    /**
     * Reads the body strictly: an object with the string fields {@code path} and {@code owner} and the integer
     * {@code token}, nothing else.
     *
     * @param index  the target index from the URL
     * @param parser the parser over the request body
     * @return the request, not yet validated
     * @throws IOException if the body cannot be read; an {@code XContentParseException} (400) for malformed
     *     JSON, wrong types or unknown fields
     * @throws IllegalArgumentException if {@code token} is missing
     */
    public static ReleaseTreeLockRequest fromXContent(String index, XContentParser parser) throws IOException {
        Map<String, Object> body = TreeLockBodyParser.parse(parser, FIELDS, EXAMPLE);
        return new ReleaseTreeLockRequest(
                index, (String) body.get("path"), (String) body.get("owner"), requiredToken(body, EXAMPLE));
    }

    @Override
    public String getDescription() {
        return "release " + describeGrant();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReleaseTreeLockRequest r && sameGrant(r);
    }

    @Override
    public int hashCode() {
        return grantHash();
    }
}
