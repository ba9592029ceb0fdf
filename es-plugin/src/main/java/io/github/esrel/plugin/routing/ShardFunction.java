package io.github.esrel.plugin.routing;

import java.util.function.IntConsumer;
import org.elasticsearch.cluster.routing.IndexRouting;
import org.jspecify.annotations.Nullable;

/**
 * Where a document goes and which shards a routed search visits: the two questions the calculator asks.
 * Real indices are always answered by the server's own {@link IndexRouting}; only a hypothetical
 * index whose function the running server does not implement (modulo on 9.3) uses the formula.
 */
public interface ShardFunction {

    /**
     * The shard of a document.
     *
     * @param id      the document's id
     * @param routing its routing; null only for unpartitioned indices
     * @return the shard number
     */
    int shard(String id, @Nullable String routing);

    /**
     * The shards a search with this routing value visits, possibly repeated.
     *
     * @param routing  the routing value
     * @param consumer takes each shard number
     */
    void searchShards(String routing, IntConsumer consumer);

    /**
     * Elasticsearch's own routing for this index metadata.
     *
     * @param routing the server's routing of the index
     * @return the function
     */
    static ShardFunction server(IndexRouting routing) {
        return new ShardFunction() {
            @Override
            public int shard(String id, @Nullable String r) {
                return routing.getShard(id, r);
            }

            @Override
            public void searchShards(String r, IntConsumer consumer) {
                routing.collectSearchShards(r, consumer);
            }
        };
    }
}
