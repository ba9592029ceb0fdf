package io.github.esrel.plugin.routing;

import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.routing.IndexRouting;
import org.elasticsearch.index.IndexVersion;
import org.elasticsearch.index.IndexVersions;

/**
 * Elasticsearch 9.5: the server implements both routing functions and picks one by creation version
 * ({@link IndexRouting#shouldUseShardCountModRouting}), so everything is delegated to it.
 */
public final class RoutingCompat {

    private RoutingCompat() {}

    /**
     * The function the server applies to this index.
     *
     * @param indexMetadata the index
     * @return its routing function
     */
    public static RoutingFunctionType functionOf(IndexMetadata indexMetadata) {
        return functionOf(indexMetadata.getCreationVersion());
    }

    /**
     * The function of an index created now on this node.
     *
     * @return the routing function
     */
    public static RoutingFunctionType newIndexFunction() {
        return functionOf(IndexVersion.current());
    }

    /**
     * A creation version that makes the server use {@code type} for a hypothetical index.
     *
     * @param type the routing function wanted
     * @return the creation version to build the index metadata with
     */
    public static IndexVersion creationVersionFor(RoutingFunctionType type) {
        // Routing only distinguishes "before MOD_ROUTING_FUNCTION" from "on or after": the version just
        // before it stands for every pre-9.4 release.
        return type == RoutingFunctionType.MODULO
                ? IndexVersion.current()
                : IndexVersion.fromId(IndexVersions.MOD_ROUTING_FUNCTION.id() - 1);
    }

    /**
     * The shard function for an index built with {@link #creationVersionFor}{@code (type)}.
     *
     * @param indexMetadata the hypothetical index
     * @param type          its routing function
     * @return where its documents go
     */
    public static ShardFunction hypothetical(IndexMetadata indexMetadata, RoutingFunctionType type) {
        assert functionOf(indexMetadata) == type;
        return ShardFunction.server(IndexRouting.fromIndexMetadata(indexMetadata));
    }

    private static RoutingFunctionType functionOf(IndexVersion created) {
        return IndexRouting.shouldUseShardCountModRouting(created)
                ? RoutingFunctionType.MODULO
                : RoutingFunctionType.LEGACY;
    }
}
