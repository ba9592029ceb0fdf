package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.internal.RestCall;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The contract against the esrel plugin's tree-lock REST API on a real node. */
@EsrelTest
class PluginTreeLocksIT extends AbstractTreeLocksContractIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    @Override
    protected ElasticsearchClient client() {
        return cluster.client();
    }

    @Override
    protected TreeLocks.Backend backend() {
        return TreeLocks.Backend.PLUGIN;
    }

    /** Releases the lock with its own owner and token, behind the handle's back. */
    @Override
    protected void revoke(TreeLock lock) throws IOException {
        RestCall.Answer a = RestCall.post(
                        "/" + lock.index() + "/_treelock/release",
                        Map.of(),
                        Map.of("path", lock.path().value(), "owner", lock.owner(), "token", lock.token()))
                .exchange(client());
        assertThat(a.status()).isEqualTo(200);
    }

    @Test
    void shouldPickThePluginWhenTheClusterHasIt() {
        String ns = namespace();
        try (TreeLocks locks = TreeLocks.of(b -> b.client(client()).index(ns))) {
            assertThat(locks).isInstanceOf(PluginTreeLocks.class);
            assertThat(locks.backend()).isEqualTo(TreeLocks.Backend.PLUGIN);
        }
        // Even for a namespace whose index does not exist: the handler answered.
        assertThat(PluginTreeLocks.available(client(), "no-such-index")).isTrue();
    }

    /**
     * The public health probe, without Spring, on a node with the plugin: UP, the plugin on every node with its
     * version, the plugin's provider and its system lock index; without tree locks, only the plugin is checked.
     */
    @Test
    void shouldReportThePluginAndItsLockIndexThroughThePublicProbe() {
        TreeLocks locks = locks(namespace());
        locks.acquire("/probe", LockMode.EXCLUSIVE).orThrow().close();
        io.github.esrel.health.HealthReport report = io.github.esrel.health.HealthProbe.of(
                        b -> b.client(client()).treeLocks(locks))
                .check();
        assertThat(report.up()).as("%s", report).isTrue();
        assertThat(report.error()).isEmpty();
        assertThat(report.provider()).contains(TreeLocks.Backend.PLUGIN);
        assertThat(report.nodesWithoutPlugin()).isEmpty();
        assertThat(report.details().get("plugin").toString())
                .contains("nodes=1")
                .contains("withPlugin=1");
        assertThat(report.details().get("locks").toString())
                .contains("lockIndex=.esrel-treelocks-")
                .containsPattern("lockIndexStatus=(green|yellow)");

        io.github.esrel.health.HealthReport pluginOnly =
                io.github.esrel.health.HealthProbe.of(b -> b.client(client())).check();
        assertThat(pluginOnly.up()).isTrue();
        assertThat(pluginOnly.provider()).isEmpty();
    }

    @Test
    void shouldSurfaceServerRefusalsAsExceptionsWithTheStatus() {
        TreeLocks locks = locks(namespace());
        // Longer than the node's maximum lease (1 h by default): refused, not shortened.
        assertThatThrownBy(() -> locks.acquire(LockRequest.of(b -> b.path("/a").ttl(Duration.ofHours(2)))))
                .isInstanceOfSatisfying(TreeLockException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("ttl");
                });
    }

    /**
     * The client's limits are the plugin's own, on every line: sent past the client's check (raw, as another client
     * would), the paths one past a limit are refused by the node with a 400 that names the same limit, and the paths
     * at the limits are granted.
     */
    @Test
    void shouldHoldTheSameLimitsAsTheClient() throws IOException {
        String ns = namespace();
        for (Map.Entry<String, String> e :
                io.github.esrel.path.LimitPaths.refused().entrySet()) {
            RestCall.Answer a = RestCall.post(
                            "/" + ns + "/_treelock/acquire", Map.of(), Map.of("path", e.getValue(), "owner", "raw"))
                    .exchange(client(), 400);
            assertThat(a.status()).as(e.getKey()).isEqualTo(400);
            assertThat(a.body().toJson(client()._jsonpMapper()).toString())
                    .as(e.getKey())
                    .containsAnyOf(
                            "at most " + io.github.esrel.path.TreePath.MAX_BYTES + " are allowed",
                            "more than " + io.github.esrel.path.TreePath.MAX_DEPTH + " segments");
        }
        for (Map.Entry<String, String> e :
                io.github.esrel.path.LimitPaths.accepted().entrySet()) {
            RestCall.Answer a = RestCall.post(
                            "/" + ns + "/_treelock/acquire",
                            Map.of(),
                            Map.of("path", e.getValue(), "owner", "raw", "ttl", "1m"))
                    .exchange(client(), 200);
            assertThat(a.status()).as(e.getKey()).isEqualTo(200);
        }
        assertThat(locks(ns).list())
                .hasSize(io.github.esrel.path.LimitPaths.accepted().size());
    }

    @Test
    void shouldSendTheBindingToThePluginWhichNeedsSecurityForIt() {
        TreeLocks locks = locks(namespace());
        // This node runs without security: there is no user to bind to, and the plugin says so.
        assertThatThrownBy(
                        () -> locks.acquire(LockRequest.of(b -> b.path("/bound").bindToUser(true))))
                .isInstanceOfSatisfying(TreeLockException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.getMessage()).contains("bind_to_user needs an authenticated user");
                });
        assertThat(locks.list()).isEmpty();
    }
}
