package io.github.esrel.plugin.compat;

import org.elasticsearch.action.IndicesRequest;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.metadata.IndexAbstraction;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.core.Nullable;

import java.util.Map;
import java.util.Set;

/**
 * The indices and aliases of one cluster state, as esrel's transport actions read them: the one seam between
 * the feature code and the cluster-state API, which differs between server lines.
 *
 * <p>This copy serves Elasticsearch 8.19 and 9.0, where index metadata is cluster-wide ({@code
 * state.metadata()}) and the resolver takes the whole {@link ClusterState}. Elasticsearch 9.1 and later read
 * the metadata of the request's project instead ({@code src/main/compat/metadata-project}); both copies have
 * the same public API.
 */
public final class ClusterIndices {

    private final ClusterState state;
    private final IndexNameExpressionResolver resolver;

    private ClusterIndices(ClusterState state, IndexNameExpressionResolver resolver) {
        this.state = state;
        this.resolver = resolver;
    }

    /** The indices of {@code state}, resolved with {@code resolver} (unit tests build both themselves). */
    public static ClusterIndices of(ClusterState state, IndexNameExpressionResolver resolver) {
        return new ClusterIndices(state, resolver);
    }

    /** The concrete indices a request names, with its indices options, as the server's own actions resolve them. */
    public String[] concreteIndexNames(IndicesRequest request) {
        return resolver.concreteIndexNames(state, request);
    }

    /** The metadata of a concrete index, or {@code null} if there is none by that name. */
    @Nullable
    public IndexMetadata index(String name) {
        return state.metadata().index(name);
    }

    /** Whether {@code expression} is the name of an alias. */
    public boolean isAlias(String expression) {
        IndexAbstraction abstraction = state.metadata().getIndicesLookup().get(expression);
        return abstraction != null && abstraction.getType() == IndexAbstraction.Type.ALIAS;
    }

    /** The routing a write through {@code alias} uses: the alias's index_routing when {@code routing} is null. */
    @Nullable
    public String resolveIndexRouting(@Nullable String routing, String alias) {
        return state.metadata().resolveIndexRouting(routing, alias);
    }

    /** The routing values per concrete index that a search with {@code routing} uses, or null for none. */
    @Nullable
    public Map<String, Set<String>> resolveSearchRouting(@Nullable String routing, String... expressions) {
        return resolver.resolveSearchRouting(state, routing, expressions);
    }

    /** Reads {@link ClusterIndices} of the node's current cluster state; a node component. */
    public static final class Reader {

        private final IndexNameExpressionResolver resolver;

        private Reader(IndexNameExpressionResolver resolver) {
            this.resolver = resolver;
        }

        /** The reader a plugin creates in {@code createComponents}. */
        public static Reader create(org.elasticsearch.plugins.Plugin.PluginServices services) {
            return new Reader(services.indexNameExpressionResolver());
        }

        /** The indices of {@code state}. */
        public ClusterIndices read(ClusterState state) {
            return new ClusterIndices(state, resolver);
        }
    }
}
