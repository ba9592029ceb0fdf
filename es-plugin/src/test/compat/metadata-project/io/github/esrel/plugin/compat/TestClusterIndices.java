package io.github.esrel.plugin.compat;

import java.util.List;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.metadata.ProjectId;
import org.elasticsearch.cluster.metadata.ProjectMetadata;
import org.elasticsearch.cluster.project.DefaultProjectResolver;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.elasticsearch.indices.SystemIndices;

/** {@link ClusterIndices} built from index metadata for unit tests (9.1 and later: the default project). */
public final class TestClusterIndices {

    private static final IndexNameExpressionResolver RESOLVER = new IndexNameExpressionResolver(
            new ThreadContext(Settings.EMPTY), new SystemIndices(List.of()), DefaultProjectResolver.INSTANCE);

    private TestClusterIndices() {}

    /** A cluster holding exactly these indices. */
    public static ClusterIndices of(IndexMetadata.Builder... indices) {
        ProjectMetadata.Builder project = ProjectMetadata.builder(ProjectId.DEFAULT);
        for (IndexMetadata.Builder index : indices) {
            project.put(index);
        }
        return new ClusterIndices(new LineMetadata(project.build(), RESOLVER));
    }
}
