package io.github.esrel.plugin.routing;

import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.routing.IndexRouting;
import org.elasticsearch.index.IndexVersion;

/**
 * Elasticsearch 9.3: every index this server can hold uses the legacy function; the modulo function
 * (indices created by 9.4+) exists here only for hypothetical indices, written out in
 * {@link ModuloShardFunction}.
 */
public final class RoutingCompat {

    private RoutingCompat() {}

    /**
     * The function the server applies to this index: always legacy before 9.4.
     *
     * @param indexMetadata the index
     * @return its routing function
     */
    public static RoutingFunctionType functionOf(IndexMetadata indexMetadata) {
        return RoutingFunctionType.LEGACY;
    }

    /**
     * The function of an index created now on this node.
     *
     * @return the routing function
     */
    public static RoutingFunctionType newIndexFunction() {
        return RoutingFunctionType.LEGACY;
    }

    /**
     * The creation version of a hypothetical index: this node's (the function is chosen separately).
     *
     * @param type the routing function wanted
     * @return the creation version to build the index metadata with
     */
    public static IndexVersion creationVersionFor(RoutingFunctionType type) {
        return IndexVersion.current();
    }

    /**
     * The shard function for a hypothetical index of the given type: the hand-written modulo function, which this
     * line's server does not have, or the server's own.
     *
     * @param indexMetadata the hypothetical index
     * @param type          its routing function
     * @return where its documents go
     */
    public static ShardFunction hypothetical(IndexMetadata indexMetadata, RoutingFunctionType type) {
        if (type == RoutingFunctionType.MODULO) {
            return new ModuloShardFunction(indexMetadata.getNumberOfShards(), indexMetadata.getRoutingPartitionSize());
        }
        return ShardFunction.server(IndexRouting.fromIndexMetadata(indexMetadata));
    }
}
