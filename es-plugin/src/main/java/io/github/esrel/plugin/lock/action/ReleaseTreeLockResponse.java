package io.github.esrel.plugin.lock.action;

import java.io.IOException;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.xcontent.ToXContentObject;
import org.elasticsearch.xcontent.XContentBuilder;

/**
 * {@code 200 {"released": true}}. The other outcomes are errors: 404 when nothing is held on the path, 409
 * when another owner or token holds it.
 */
public final class ReleaseTreeLockResponse extends ActionResponse implements ToXContentObject {

    /** The only answer: the grant is gone. It carries no data, so one instance serves every request. */
    public static final ReleaseTreeLockResponse RELEASED = new ReleaseTreeLockResponse();

    private ReleaseTreeLockResponse() {}

    /**
     * Reads a response sent by another node; there is nothing on the stream to read.
     *
     * @param in the transport stream, left untouched
     * @return {@link #RELEASED}
     */
    public static ReleaseTreeLockResponse readFrom(StreamInput in) {
        return RELEASED;
    }

    @Override
    public void writeTo(StreamOutput out) {}

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        return builder.startObject().field("released", true).endObject();
    }
}
