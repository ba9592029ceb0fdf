package io.github.esrel.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.PathNames;
import io.github.esrel.path.TreePath;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.util.List;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's own contract suite, unmodified, on {@link TreeLocks.Backend#PLUGIN}: only the provider and the two
 * assertions (a listing of the live tree locks) are supplied.
 */
@EsrelTest
class EsrelLockProviderPluginIT extends AbstractExtensibleLockProviderIntegrationTest {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ShedLockContract contract;

    @BeforeAll
    static void start() {
        contract = new ShedLockContract(cluster.client(), "shedlock-plugin-it", TreeLocks.Backend.PLUGIN);
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

    /**
     * Names map to paths with esrel's one mapping ({@link PathNames}, which Spring Integration's registry uses too),
     * each one segment under the prefix, reversibly; the paths today's ShedLock locks use stay the same.
     */
    @Test
    void shouldMapNamesWithEsrelsOneMapping() {
        EsrelLockProvider provider = contract.provider();
        PathNames names = PathNames.under(TreePath.of(EsrelLockProvider.DEFAULT_PREFIX));
        for (String name : List.of("nightly-report", "com.acme.Job.run", "a/b", "..", "50%", "é", "x\ud800")) {
            assertThat(provider.path(name)).isEqualTo(names.path(name));
            assertThat(provider.name(provider.path(name))).contains(name);
        }
        assertThat(provider.path("com.acme.Job.run").value()).isEqualTo("/shedlock/com.acme.Job.run");
        assertThat(provider.path("a/b").value()).isEqualTo("/shedlock/a%2Fb");
        assertThat(provider.name(TreePath.of("/shedlock/a/b"))).isEmpty();
        assertThat(provider.name(TreePath.of("/shedlock/%"))).isEmpty(); // the empty name, never a ShedLock name
        assertThatThrownBy(() -> provider.path("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> provider.path("x".repeat(TreePath.MAX_BYTES)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 1024 are allowed");
    }

    @Test
    void shouldLockAndUnlockWhenTheirAnswersAreLost() throws java.io.IOException {
        ShedLockContract.assertLostAnswersAreToldTruthfully(cluster, "shedlock-plugin-lost", TreeLocks.Backend.PLUGIN);
    }
}
