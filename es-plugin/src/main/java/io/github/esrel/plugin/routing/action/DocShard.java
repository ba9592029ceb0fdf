package io.github.esrel.plugin.routing.action;

import java.io.IOException;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.common.io.stream.Writeable;
import org.elasticsearch.xcontent.ToXContentObject;
import org.elasticsearch.xcontent.XContentBuilder;
import org.jspecify.annotations.Nullable;

/**
 * Where one document of a batch goes.
 *
 * @param id      the document id
 * @param routing the routing actually used (the alias's index routing when the doc had none), or null
 * @param shard   the shard number
 */
public record DocShard(String id, @Nullable String routing, int shard) implements Writeable, ToXContentObject {

    /**
     * Reads what {@link #writeTo} wrote.
     *
     * @param in the transport stream
     * @return the result read
     * @throws IOException if the stream cannot be read
     */
    public static DocShard readFrom(StreamInput in) throws IOException {
        return new DocShard(in.readString(), in.readOptionalString(), in.readVInt());
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeString(id);
        out.writeOptionalString(routing);
        out.writeVInt(shard);
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        return builder.startObject()
                .field("id", id)
                .field("routing", routing)
                .field("shard", shard)
                .endObject();
    }
}
