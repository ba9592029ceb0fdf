package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.Grant;

import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.xcontent.ToXContentObject;
import org.elasticsearch.xcontent.XContentBuilder;

import java.io.IOException;

/**
 * {@code 200 {"expires_at": "2025-11-30T12:01:00.123Z", "expires_at_millis": 1764504060123}}: the renewed
 * lease's end. The other outcomes are errors, as for release.
 */
public final class RenewTreeLockResponse extends ActionResponse implements ToXContentObject {

    private final long expiresAtMillis;

    public RenewTreeLockResponse(long expiresAtMillis) {
        this.expiresAtMillis = expiresAtMillis;
    }

    public RenewTreeLockResponse(StreamInput in) throws IOException {
        expiresAtMillis = in.readLong();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeLong(expiresAtMillis);
    }

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
