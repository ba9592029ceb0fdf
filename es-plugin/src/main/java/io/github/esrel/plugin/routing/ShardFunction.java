package io.github.esrel.plugin.routing;

import java.util.function.IntConsumer;
import org.elasticsearch.cluster.routing.IndexRouting;
import org.elasticsearch.core.Nullable;

/**
 * Where a document goes and which shards a routed search visits: the two questions the calculator asks.
 * Real indices are always answered by the server's own {@link IndexRouting}; only a hypothetical
 * index whose function the running server does not implement (modulo on 9.3) uses the formula.
 */
interface ShardFunction {

    /** The shard of a document. {@code routing} is null only for unpartitioned indices. */
    int shard(String id, @Nullable String routing);

    /** The shards a search with this routing value visits, possibly repeated. */
    void searchShards(String routing, IntConsumer consumer);

    /** Elasticsearch's own routing for this index metadata. */
    static ShardFunction server(IndexRouting routing) {
        return new ShardFunction() {
            @Override
            public int shard(String id, String r) {
                return routing.getShard(id, r);
            }

            @Override
            public void searchShards(String r, IntConsumer consumer) {
                routing.collectSearchShards(r, consumer);
            }
        };
    }
}
