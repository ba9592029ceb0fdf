package io.github.esrel.plugin.routing;

import java.util.function.IntConsumer;
import org.elasticsearch.cluster.routing.Murmur3HashFunction;
import org.jspecify.annotations.Nullable;

/**
 * The 9.4+ routing function written out, for servers that predate it (a 9.3 node asked about an index
 * created by 9.4 or later): {@code floorMod(hash(routing ?? id) + floorMod(hash(id), p), number_of_shards)}.
 * On 9.5 the unit tests check it against the server's own implementation.
 */
record ModuloShardFunction(int numberOfShards, int partitionSize) implements ShardFunction {

    @Override
    public int shard(String id, @Nullable String routing) {
        if (partitionSize > 1) {
            return shardOfHash(
                    Murmur3HashFunction.hash(routing) + Math.floorMod(Murmur3HashFunction.hash(id), partitionSize));
        }
        return shardOfHash(Murmur3HashFunction.hash(routing == null ? id : routing));
    }

    @Override
    public void searchShards(String routing, IntConsumer consumer) {
        int hash = Murmur3HashFunction.hash(routing);
        for (int offset = 0; offset < partitionSize; offset++) {
            consumer.accept(shardOfHash(hash + offset));
        }
    }

    private int shardOfHash(int hash) {
        return Math.floorMod(hash, numberOfShards);
    }
}
