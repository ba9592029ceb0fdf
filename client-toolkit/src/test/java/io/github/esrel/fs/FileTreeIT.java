package io.github.esrel.fs;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import org.junit.jupiter.api.Nested;

/** {@link AbstractFileTreeIT} with both lock providers on one real node. */
@EsrelTest
class FileTreeIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().build();

    @Nested
    class WithPluginLocks extends AbstractFileTreeIT {
        @Override
        ElasticsearchClient es() {
            return cluster.client();
        }

        @Override
        TreeLocks.Backend backend() {
            return TreeLocks.Backend.PLUGIN;
        }
    }

    @Nested
    class WithLockDocuments extends AbstractFileTreeIT {
        @Override
        ElasticsearchClient es() {
            return cluster.client();
        }

        @Override
        TreeLocks.Backend backend() {
            return TreeLocks.Backend.DOCUMENTS;
        }
    }
}
