package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.grant.Grant;
import java.io.IOException;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.xcontent.ToXContentObject;
import org.elasticsearch.xcontent.XContentBuilder;

/**
 * {@code 200 {"expires_at": "2025-11-30T12:01:00.123Z", "expires_at_millis": 1764504060123}}: the renewed
 * lease's end. The other outcomes are errors, as for release.
 */
public final class RenewTreeLockResponse extends ActionResponse implements ToXContentObject {

    private final long expiresAtMillis;

    /**
     * Creates a response.
     *
     * @param expiresAtMillis the new end of the lease, epoch milliseconds (the deciding node's clock)
     */
    public RenewTreeLockResponse(long expiresAtMillis) {
        this.expiresAtMillis = expiresAtMillis;
    }

    /**
     * Reads a response sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public RenewTreeLockResponse(StreamInput in) throws IOException {
        expiresAtMillis = in.readLong();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeLong(expiresAtMillis);
    }

    /**
     * The new end of the lease: the {@code expires_at_millis} field of the body ({@code expires_at} shows it as
     * ISO-8601).
     *
     * @return epoch milliseconds, measured with the deciding node's clock
     */
    public long expiresAtMillis() {
        return expiresAtMillis;
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        return builder.startObject()
                .field("expires_at", Grant.iso(expiresAtMillis))
                .field("expires_at_millis", expiresAtMillis)
                .endObject();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RenewTreeLockResponse r && expiresAtMillis == r.expiresAtMillis;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(expiresAtMillis);
    }
}
