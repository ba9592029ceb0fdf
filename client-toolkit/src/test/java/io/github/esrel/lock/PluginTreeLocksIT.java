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

    @Test
    void shouldSurfaceServerRefusalsAsExceptionsWithTheStatus() {
        TreeLocks locks = locks(namespace());
        // Longer than the node's maximum lease (1 h by default): refused, not shortened.
        assertThatThrownBy(() -> locks.acquire(LockRequest.of(b -> b.path("/a").ttl(Duration.ofHours(2)))))
                .isInstanceOfSatisfying(TreeLockException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("ttl");
                });
        // A path the client accepts but the plugin finds too long (1024 UTF-8 bytes at most).
        assertThatThrownBy(() -> locks.acquire("/" + "x".repeat(2000), LockMode.SHARED))
                .isInstanceOfSatisfying(
                        TreeLockException.class, e -> assertThat(e.status()).isEqualTo(400));
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
