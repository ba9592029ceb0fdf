package io.github.esrel.plugin.compat;

import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.elasticsearch.action.IndicesRequest;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.metadata.IndexAbstraction;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.metadata.ProjectMetadata;
import org.elasticsearch.cluster.project.ProjectResolver;
import org.elasticsearch.plugins.Plugin;
import org.jspecify.annotations.Nullable;

/**
 * What {@link ClusterIndices} reads on Elasticsearch 9.1 and later: index metadata lives in the
 * {@link ProjectMetadata} of the request's project, and the resolver takes that project.
 */
record LineMetadata(ProjectMetadata project, IndexNameExpressionResolver resolver) {

    static Function<ClusterState, LineMetadata> reader(Plugin.PluginServices services) {
        ProjectResolver projects = services.projectResolver();
        IndexNameExpressionResolver resolver = services.indexNameExpressionResolver();
        return state -> new LineMetadata(projects.getProjectMetadata(state), resolver);
    }

    String[] concreteIndexNames(IndicesRequest request) {
        return resolver.concreteIndexNames(project, request);
    }

    @Nullable
    IndexMetadata index(String name) {
        return project.index(name);
    }

    Map<String, IndexAbstraction> indicesLookup() {
        return project.getIndicesLookup();
    }

    @Nullable
    String resolveIndexRouting(@Nullable String routing, String alias) {
        return project.resolveIndexRouting(routing, alias);
    }

    @Nullable
    Map<String, Set<String>> resolveSearchRouting(@Nullable String routing, String... expressions) {
        return resolver.resolveSearchRouting(project, routing, expressions);
    }
}
