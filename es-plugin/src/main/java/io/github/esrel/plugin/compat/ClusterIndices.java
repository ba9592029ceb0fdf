package io.github.esrel.plugin.compat;

import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.elasticsearch.action.IndicesRequest;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.metadata.IndexAbstraction;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.service.ClusterService;
import org.jspecify.annotations.Nullable;

/**
 * The indices and aliases of one cluster state, as esrel's transport actions read them: the one seam between
 * the feature code and the cluster-state API, which differs between server lines.
 *
 * <p>What differs is in {@code LineMetadata}, one per line in {@code src/main/compat/metadata-*}: Elasticsearch
 * 8.19 and 9.0 read the cluster-wide metadata and resolve against the whole cluster state, 9.1 and later the
 * metadata of the request's project.
 */
public final class ClusterIndices {

    private final LineMetadata metadata;

    ClusterIndices(LineMetadata metadata) {
        this.metadata = metadata;
    }

    /**
     * The concrete indices a request names, with its indices options, as the server's own actions resolve them.
     *
     * @param request the request whose {@code indices()} and {@code indicesOptions()} are resolved
     * @return the names of the concrete indices; aliases are replaced by the indices they point to
     * @throws org.elasticsearch.index.IndexNotFoundException if a name matches nothing and the request's
     *     indices options do not allow that
     */
    public String[] concreteIndexNames(IndicesRequest request) {
        return metadata.concreteIndexNames(request);
    }

    /**
     * The metadata of a concrete index, or {@code null} if there is none by that name.
     *
     * @param name the concrete index name (not an alias or pattern)
     * @return its metadata (settings, mappings, routing shards, aliases), or {@code null}
     */
    public @Nullable IndexMetadata index(String name) {
        return metadata.index(name);
    }

    /**
     * Whether {@code expression} is the name of an alias.
     *
     * @param expression an index expression as a request gives it
     * @return {@code true} if an alias by exactly that name exists
     */
    public boolean isAlias(String expression) {
        IndexAbstraction abstraction = metadata.indicesLookup().get(expression);
        return abstraction != null && abstraction.getType() == IndexAbstraction.Type.ALIAS;
    }

    /**
     * The routing a write through {@code alias} uses: the alias's index_routing when {@code routing} is null.
     *
     * @param routing the routing of the request, or null
     * @param alias   the index or alias the request names
     * @return {@code routing}, else the alias's index routing; null if neither has one
     * @throws IllegalArgumentException if {@code routing} differs from the alias's index routing, as
     *     Elasticsearch refuses it when indexing
     */
    public @Nullable String resolveIndexRouting(@Nullable String routing, String alias) {
        return metadata.resolveIndexRouting(routing, alias);
    }

    /**
     * The routing values per concrete index that a search with {@code routing} uses, or null for none.
     *
     * @param routing     the search's routing, comma-separated values, or null
     * @param expressions the indices, aliases or patterns searched
     * @return for each concrete index with routing, its routing values (intersected with the aliases' search
     *     routing); null if the search is not routed at all
     */
    public @Nullable Map<String, Set<String>> resolveSearchRouting(@Nullable String routing, String... expressions) {
        return metadata.resolveSearchRouting(routing, expressions);
    }

    /** Reads {@link ClusterIndices} of the node's current cluster state; a node component. */
    public static final class Reader {

        private final ClusterService clusterService;
        private final Function<ClusterState, LineMetadata> read;

        private Reader(ClusterService clusterService, Function<ClusterState, LineMetadata> read) {
            this.clusterService = clusterService;
            this.read = read;
        }

        /**
         * The reader a plugin creates in {@code createComponents}.
         *
         * @param services the node services handed to {@code createComponents}
         * @return a new reader, to return as a component so that transport actions get it injected
         */
        public static Reader create(org.elasticsearch.plugins.Plugin.PluginServices services) {
            return new Reader(services.clusterService(), LineMetadata.reader(services));
        }

        /**
         * The indices of the node's current cluster state; from 9.1, those of the project of the request being
         * served. Each call reads the state anew: a caller that needs one consistent view keeps the result.
         *
         * @return a view of the indices and aliases of the current cluster state
         */
        public ClusterIndices current() {
            return new ClusterIndices(read.apply(clusterService.state()));
        }
    }
}
