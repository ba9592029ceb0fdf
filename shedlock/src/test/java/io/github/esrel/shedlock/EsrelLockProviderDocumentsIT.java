package io.github.esrel.shedlock;

import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's own contract suite, unmodified, on {@link TreeLocks.Backend#DOCUMENTS}: only the provider and the two
 * assertions (a listing of the live tree locks) are supplied.
 */
@EsrelTest
class EsrelLockProviderDocumentsIT extends AbstractExtensibleLockProviderIntegrationTest {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ShedLockContract contract;

    @BeforeAll
    static void start() {
        contract = new ShedLockContract(cluster.client(), "shedlock-documents-it", TreeLocks.Backend.DOCUMENTS);
    }

    @AfterAll
    static void stop() {
        if (contract != null) {
            contract.close();
        }
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return contract.provider();
    }

    @Override
    protected void assertLocked(String name) {
        contract.assertLocked(name);
    }

    @Override
    protected void assertUnlocked(String name) {
        contract.assertUnlocked(name);
    }

    @Test
    void shouldLockAndUnlockWhenTheirAnswersAreLost() throws java.io.IOException {
        ShedLockContract.assertLostAnswersAreToldTruthfully(
                cluster, "shedlock-documents-lost", TreeLocks.Backend.DOCUMENTS);
    }
}
