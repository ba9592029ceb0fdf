package io.github.esrel.lock;

import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.util.function.Predicate;

/** Lost answers with the esrel plugin's tree locks: requests sent again are recognised by their grant id. */
@EsrelTest
class PluginLostAnswersIT extends AbstractLostAnswersContractIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    @Override
    protected EsCluster cluster() {
        return cluster;
    }

    @Override
    protected TreeLocks.Backend backend() {
        return TreeLocks.Backend.PLUGIN;
    }

    @Override
    protected Predicate<String> writesOf(String operation) {
        return line -> line.contains("/_treelock/" + operation + " ");
    }
}
