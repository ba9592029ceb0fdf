package io.github.esrel.plugin.compat;

import java.util.List;
import org.elasticsearch.cluster.ClusterName;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.metadata.Metadata;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.elasticsearch.indices.SystemIndices;

/** {@link ClusterIndices} built from index metadata for unit tests (8.19 and 9.0: cluster-wide metadata). */
public final class TestClusterIndices {

    private static final IndexNameExpressionResolver RESOLVER =
            new IndexNameExpressionResolver(new ThreadContext(Settings.EMPTY), new SystemIndices(List.of()));

    private TestClusterIndices() {}

    /** A cluster holding exactly these indices. */
    public static ClusterIndices of(IndexMetadata.Builder... indices) {
        Metadata.Builder metadata = Metadata.builder();
        for (IndexMetadata.Builder index : indices) {
            metadata.put(index);
        }
        return new ClusterIndices(new LineMetadata(
                ClusterState.builder(ClusterName.DEFAULT).metadata(metadata).build(), RESOLVER));
    }
}
