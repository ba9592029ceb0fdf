package io.github.esrel.plugin.compat;

import org.elasticsearch.action.IndicesRequest;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.metadata.IndexAbstraction;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.metadata.ProjectMetadata;
import org.elasticsearch.cluster.project.ProjectResolver;
import org.elasticsearch.core.Nullable;

import java.util.Map;
import java.util.Set;

/**
 * The indices and aliases of one cluster state, as esrel's transport actions read them: the one seam between
 * the feature code and the cluster-state API, which differs between server lines.
 *
 * <p>This copy serves Elasticsearch 9.1 and later, where index metadata lives in the {@link ProjectMetadata}
 * of the request's project. Elasticsearch 8.19 and 9.0 read the cluster-wide {@code Metadata} instead
 * ({@code src/main/compat/metadata-cluster}); both copies have the same public API.
 */
public final class ClusterIndices {

    private final ProjectMetadata project;
    private final IndexNameExpressionResolver resolver;

    private ClusterIndices(ProjectMetadata project, IndexNameExpressionResolver resolver) {
        this.project = project;
        this.resolver = resolver;
    }

    /** The indices of {@code project}, resolved with {@code resolver} (unit tests build both themselves). */
    public static ClusterIndices of(ProjectMetadata project, IndexNameExpressionResolver resolver) {
        return new ClusterIndices(project, resolver);
    }

    /** The concrete indices a request names, with its indices options, as the server's own actions resolve them. */
    public String[] concreteIndexNames(IndicesRequest request) {
        return resolver.concreteIndexNames(project, request);
    }

    /** The metadata of a concrete index, or {@code null} if there is none by that name. */
    @Nullable
    public IndexMetadata index(String name) {
        return project.index(name);
    }

    /** Whether {@code expression} is the name of an alias. */
    public boolean isAlias(String expression) {
        IndexAbstraction abstraction = project.getIndicesLookup().get(expression);
        return abstraction != null && abstraction.getType() == IndexAbstraction.Type.ALIAS;
    }

    /** The routing a write through {@code alias} uses: the alias's index_routing when {@code routing} is null. */
    @Nullable
    public String resolveIndexRouting(@Nullable String routing, String alias) {
        return project.resolveIndexRouting(routing, alias);
    }

    /** The routing values per concrete index that a search with {@code routing} uses, or null for none. */
    @Nullable
    public Map<String, Set<String>> resolveSearchRouting(@Nullable String routing, String... expressions) {
        return resolver.resolveSearchRouting(project, routing, expressions);
    }

    /** Reads {@link ClusterIndices} of the node's current cluster state; a node component. */
    public static final class Reader {

        private final ProjectResolver projectResolver;
        private final IndexNameExpressionResolver resolver;

        private Reader(ProjectResolver projectResolver, IndexNameExpressionResolver resolver) {
            this.projectResolver = projectResolver;
            this.resolver = resolver;
        }

        /** The reader a plugin creates in {@code createComponents}. */
        public static Reader create(org.elasticsearch.plugins.Plugin.PluginServices services) {
            return new Reader(services.projectResolver(), services.indexNameExpressionResolver());
        }

        /** The indices of {@code state}, in the project of the request being served. */
        public ClusterIndices read(ClusterState state) {
            return new ClusterIndices(projectResolver.getProjectMetadata(state), resolver);
        }
    }
}
