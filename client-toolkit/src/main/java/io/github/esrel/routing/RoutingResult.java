package io.github.esrel.routing;

import java.util.List;

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
public record RoutingResult(RoutingSpec spec, int[] shards, Distribution distribution, List<String> warnings,
                            boolean computedByServer) {

    public RoutingResult {
        shards = shards.clone();
        warnings = List.copyOf(warnings);
    }

    @Override
    public int[] shards() {
        return shards.clone();
    }

    /** The shard of the i-th document of the request. */
    public int shard(int i) {
        return shards[i];
    }
}
