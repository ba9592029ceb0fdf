package io.github.esrel.routing;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The shards of a batch of documents, computed by {@link RoutingClient#calculate}.
 *
 * @param spec the index's routing parameters
 * @param shards the shard of each document, in request order
 * @param distribution documents per shard
 * @param warnings what the plugin found worth telling (partition sizes that barely spread data,
 *     the same id with two routings on two shards, …); empty when computed locally
 * @param computedByServer true when the esrel plugin computed it with the server's own routing code
 */
public record RoutingResult(
        RoutingSpec spec,
        int[] shards,
        @Nullable Distribution distribution,
        List<String> warnings,
        boolean computedByServer) {

    /**
     * Copies {@code shards} and {@code warnings}.
     *
     * @param spec the index's routing parameters
     * @param shards the shard of each document, in request order; copied
     * @param distribution documents per shard
     * @param warnings the plugin's warnings; copied, must not contain {@code null}
     * @param computedByServer true when the esrel plugin computed it with the server's own routing code
     * @throws NullPointerException if {@code shards} or {@code warnings} is {@code null}
     */
    public RoutingResult {
        shards = shards.clone();
        warnings = List.copyOf(warnings);
    }

    /**
     * The shard of each document, in request order.
     *
     * @return a copy of the shard numbers
     */
    @Override
    public int[] shards() {
        return shards.clone();
    }

    /**
     * The shard of the i-th document of the request.
     *
     * @param i the 0-based position of the document in the request
     * @return its shard number
     * @throws ArrayIndexOutOfBoundsException if {@code i} is out of range
     */
    public int shard(int i) {
        return shards[i];
    }
}
