package io.github.esrel.plugin.routing;

import java.io.IOException;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.common.io.stream.Writeable;
import org.elasticsearch.xcontent.XContentBuilder;

/**
 * The index parameters that decide where documents go, as reported in every response.
 *
 * @param numberOfShards       primary shards
 * @param routingNumShards     the hash space of the legacy function; kept from the source index by split and shrink
 * @param routingFactor        {@code routingNumShards / numberOfShards} (used by the legacy function only)
 * @param routingPartitionSize shards a routing value spreads over ({@code index.routing_partition_size}, 1 = not partitioned)
 * @param function             the routing function the index uses
 * @param routingRequired      whether a document needs a routing value to be indexed: the mapping sets
 *                             {@code _routing.required}, or the index is partitioned
 */
public record RoutingParameters(
        int numberOfShards,
        int routingNumShards,
        int routingFactor,
        int routingPartitionSize,
        RoutingFunctionType function,
        boolean routingRequired)
        implements Writeable {

    /**
     * Reads what {@link #writeTo} wrote.
     *
     * @param in the transport stream
     * @return the parameters read
     * @throws IOException if the stream cannot be read
     */
    public static RoutingParameters readFrom(StreamInput in) throws IOException {
        return new RoutingParameters(
                in.readVInt(),
                in.readVInt(),
                in.readVInt(),
                in.readVInt(),
                in.readEnum(RoutingFunctionType.class),
                in.readBoolean());
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeVInt(numberOfShards);
        out.writeVInt(routingNumShards);
        out.writeVInt(routingFactor);
        out.writeVInt(routingPartitionSize);
        out.writeEnum(function);
        out.writeBoolean(routingRequired);
    }

    /**
     * True if a routing value spreads over several shards, so the shard also depends on the id.
     *
     * @return {@code true} if {@code routingPartitionSize > 1}
     */
    public boolean partitioned() {
        return routingPartitionSize > 1;
    }

    /**
     * Writes the fields into the object being built: {@code number_of_shards}, {@code routing_num_shards},
     * {@code routing_factor}, {@code routing_partition_size} and {@code routing_function}.
     *
     * @param builder the builder, inside an open object
     * @throws IOException if the builder fails to write
     */
    public void toXContentFields(XContentBuilder builder) throws IOException {
        builder.field("number_of_shards", numberOfShards);
        builder.field("routing_num_shards", routingNumShards);
        builder.field("routing_factor", routingFactor);
        builder.field("routing_partition_size", routingPartitionSize);
        builder.field("routing_function", function.jsonName());
        builder.field("routing_required", routingRequired);
    }
}
