package io.github.esrel.lock;

import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.testenv.LossyProxy;
import java.util.function.Predicate;

/**
 * Lost answers with lock documents, on a node without the plugin: a write sent again conflicts with itself, and the
 * lock document read back tells whether it was applied.
 */
@EsrelTest
class DocumentLostAnswersIT extends AbstractLostAnswersContractIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().plugin(false).shared().build();

    @Override
    protected EsCluster cluster() {
        return cluster;
    }

    @Override
    protected TreeLocks.Backend backend() {
        return TreeLocks.Backend.DOCUMENTS;
    }

    /** Every write of a lock document: acquire, renewal and release all read a document and write it back. */
    @Override
    protected Predicate<String> writesOf(String operation) {
        String index = "/" + TreeLocks.Builder.DEFAULT_LOCK_INDEX + "/";
        return LossyProxy.WRITES.and(
                line -> line.contains(index + "_doc/") || line.contains(index + "_create/") || line.contains("/_bulk"));
    }
}
