package io.github.esrel.plugin.compat;

import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.elasticsearch.action.IndicesRequest;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.metadata.IndexAbstraction;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.plugins.Plugin;
import org.jspecify.annotations.Nullable;

/**
 * What {@link ClusterIndices} reads on Elasticsearch 8.19 and 9.0: index metadata is cluster-wide
 * ({@code state.metadata()}) and the resolver takes the whole {@link ClusterState}.
 */
record LineMetadata(ClusterState state, IndexNameExpressionResolver resolver) {

    static Function<ClusterState, LineMetadata> reader(Plugin.PluginServices services) {
        IndexNameExpressionResolver resolver = services.indexNameExpressionResolver();
        return state -> new LineMetadata(state, resolver);
    }

    String[] concreteIndexNames(IndicesRequest request) {
        return resolver.concreteIndexNames(state, request);
    }

    @Nullable
    IndexMetadata index(String name) {
        return state.metadata().index(name);
    }

    Map<String, IndexAbstraction> indicesLookup() {
        return state.metadata().getIndicesLookup();
    }

    @Nullable
    String resolveIndexRouting(@Nullable String routing, String alias) {
        return state.metadata().resolveIndexRouting(routing, alias);
    }

    @Nullable
    Map<String, Set<String>> resolveSearchRouting(@Nullable String routing, String... expressions) {
        return resolver.resolveSearchRouting(state, routing, expressions);
    }
}
