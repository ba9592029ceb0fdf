package io.github.esrel.plugin.lock.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.plugin.lock.commit.VersionedStore.Failure;
import io.github.esrel.plugin.lock.commit.VersionedStore.Retries;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.elasticsearch.ElasticsearchException;
import org.elasticsearch.ElasticsearchStatusException;
import org.elasticsearch.action.NoShardAvailableActionException;
import org.elasticsearch.action.PrimaryMissingActionException;
import org.elasticsearch.action.UnavailableShardsException;
import org.elasticsearch.action.support.replication.ReplicationOperation;
import org.elasticsearch.cluster.block.ClusterBlockException;
import org.elasticsearch.cluster.coordination.NoMasterBlockService;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.node.DiscoveryNode;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.transport.TransportAddress;
import org.elasticsearch.common.util.concurrent.EsRejectedExecutionException;
import org.elasticsearch.discovery.MasterNotDiscoveredException;
import org.elasticsearch.index.IndexNotFoundException;
import org.elasticsearch.index.engine.VersionConflictEngineException;
import org.elasticsearch.index.shard.ShardId;
import org.elasticsearch.index.shard.ShardNotFoundException;
import org.elasticsearch.node.NodeClosedException;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.transport.ConnectTransportException;
import org.elasticsearch.transport.NodeDisconnectedException;
import org.elasticsearch.transport.NodeNotConnectedException;
import org.elasticsearch.transport.ReceiveTimeoutTransportException;
import org.elasticsearch.transport.RemoteTransportException;
import org.junit.jupiter.api.Test;

/**
 * What the lock index's failures mean for the group commit (retried at once, after a backoff, or not at all),
 * and what a caller hears when the retries run out: Elasticsearch's own exceptions, as the node client hands
 * them over.
 */
class LockIndexFailuresTest {

    static {
        // Elasticsearch's exceptions log when their classes load: that needs its logging set up (as in TestIndices).
        LogConfigurator.configureESLogging();
    }

    private static final ShardId SHARD = new ShardId(TreeLockIndex.NAME, "_na_", 0);

    private static final DiscoveryNode NODE = DiscoveryNode.createLocal(
            Settings.EMPTY, new TransportAddress(InetAddress.getLoopbackAddress(), 9301), "node-1");

    private static final VersionConflictEngineException CONFLICT =
            new VersionConflictEngineException(SHARD, "fs", "required seqNo [3]");

    /** Every retryable cause the lock index meets during an outage, as it reaches the plugin. */
    private static List<Exception> retryable() {
        return List.of(
                new NodeNotConnectedException(NODE, "Node not connected"),
                new NodeDisconnectedException(NODE, "indices:data/read/get[s]"),
                new ConnectTransportException(NODE, "connect_exception"),
                new ReceiveTimeoutTransportException(
                        NODE, "indices:data/write/index", "request_id [7] timed out after [10000ms]"),
                new NodeClosedException(NODE),
                new UnavailableShardsException(SHARD, "primary shard is not active"),
                new NoShardAvailableActionException(SHARD),
                new ShardNotFoundException(SHARD),
                new PrimaryMissingActionException("primary shard is not active"),
                new ReplicationOperation.RetryOnPrimaryException(SHARD, "primary term changed"),
                new ClusterBlockException(Set.of(NoMasterBlockService.NO_MASTER_BLOCK_WRITES)),
                new MasterNotDiscoveredException(),
                new EsRejectedExecutionException("write queue full"),
                new ElasticsearchStatusException("gateway timeout", RestStatus.GATEWAY_TIMEOUT),
                // A write whose index went away between read and write: the retry's read finds no table and creates it.
                new IndexNotFoundException(TreeLockIndex.NAME));
    }

    @Test
    void shouldRedoAVersionConflictAtOnceEvenFromAnotherNode() {
        assertThat(LockIndexFailures.classify(CONFLICT)).isEqualTo(Failure.CONFLICT);
        assertThat(LockIndexFailures.classify(new RemoteTransportException("node-2", CONFLICT)))
                .isEqualTo(Failure.CONFLICT);
    }

    @Test
    void shouldRetryWhatHealsByItselfAlsoWhenItComesFromAnotherNode() {
        for (Exception e : retryable()) {
            assertThat(LockIndexFailures.classify(e)).as("%s", e).isEqualTo(Failure.TRANSIENT);
            assertThat(LockIndexFailures.classify(new RemoteTransportException("node-2", e)))
                    .as("remote %s", e)
                    .isEqualTo(Failure.TRANSIENT);
        }
    }

    @Test
    void shouldNotRetryWhatRetryingCannotMend() {
        assertThat(LockIndexFailures.classify(new IllegalStateException("the lock table document is corrupt")))
                .isEqualTo(Failure.PERMANENT);
        assertThat(LockIndexFailures.classify(new IllegalArgumentException("mapping")))
                .isEqualTo(Failure.PERMANENT);
        assertThat(LockIndexFailures.classify(new ElasticsearchStatusException("forbidden", RestStatus.FORBIDDEN)))
                .isEqualTo(Failure.PERMANENT);
        // Blocks that waiting does not lift are reported at once, with their own status and name.
        assertThat(LockIndexFailures.classify(new ClusterBlockException(Set.of(IndexMetadata.INDEX_READ_ONLY_BLOCK))))
                .isEqualTo(Failure.PERMANENT);
        assertThat(LockIndexFailures.classify(
                        new ClusterBlockException(Set.of(IndexMetadata.INDEX_READ_ONLY_ALLOW_DELETE_BLOCK))))
                .isEqualTo(Failure.PERMANENT);
    }

    @Test
    void shouldAnswer503NamingTheLastCauseAndHowLongItRetriedForEveryRetryableCause() {
        for (Exception cause : retryable()) {
            Exception remote =
                    new RemoteTransportException("[node-1][127.0.0.1:9301][indices:data/read/get[s]]", cause);
            ElasticsearchStatusException e = LockIndexFailures.gaveUp(
                    "fs", new Retries(0, 12, null, remote, TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(2)));

            assertThat(e.status()).as("%s", cause).isEqualTo(RestStatus.SERVICE_UNAVAILABLE);
            assertThat(e.getMessage())
                    .as("%s", cause)
                    .startsWith(
                            "gave up after trying for 30s: the lock index [.esrel-treelocks-1] was unavailable (12 attempts failed); last failure: [")
                    .contains("[" + ElasticsearchException.getExceptionName(cause) + ": " + cause.getMessage() + "]")
                    .endsWith("; retry")
                    .doesNotContain("concurrently");
            assertThat(e.getCause()).as("the cause chain is kept").isSameAs(remote);
        }
    }

    @Test
    void shouldNameTheCauseTheWayElasticsearchDoes() {
        Exception cause =
                new RemoteTransportException("node-1", new NodeNotConnectedException(NODE, "Node not connected"));
        ElasticsearchStatusException e = LockIndexFailures.gaveUp(
                "fs",
                new Retries(0, 3, null, cause, TimeUnit.MILLISECONDS.toNanos(31_500), TimeUnit.SECONDS.toNanos(30)));

        assertThat(e.getMessage())
                .isEqualTo(
                        "gave up after trying for 31.5s: the lock index [.esrel-treelocks-1] was unavailable (3 attempts failed); "
                                + "last failure: [node_not_connected_exception: "
                                + new NodeNotConnectedException(NODE, "Node not connected").getMessage() + "]; retry");
    }

    @Test
    void shouldCountConflictsMetDuringAnOutageWithoutBlamingThemOnContention() {
        Exception cause = new UnavailableShardsException(SHARD, "primary shard is not active");
        ElasticsearchStatusException e = LockIndexFailures.gaveUp(
                "fs", new Retries(2, 9, CONFLICT, cause, TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(2)));

        assertThat(e.status()).isEqualTo(RestStatus.SERVICE_UNAVAILABLE);
        assertThat(e.getMessage())
                .contains(
                        "was unavailable (11 attempts failed, 2 of them because the table had changed since it was read)")
                .contains("unavailable_shards_exception")
                .doesNotContain("concurrently");
        assertThat(e.getCause()).isSameAs(cause);
        assertThat(e.getSuppressed()).containsExactly(CONFLICT);
    }

    /**
     * Seen in FrozenMasterLockFaultIT: a release's one write waited 40 s on a frozen primary and then met a conflict.
     * Nobody won 1 race in 40 s: the lock index was what it waited for.
     */
    @Test
    void shouldNotBlameContentionWhenTheFewWritesEachWaitedForTheLockIndex() {
        ElasticsearchStatusException e = LockIndexFailures.gaveUp(
                "fs",
                new Retries(
                        1,
                        0,
                        CONFLICT,
                        null,
                        TimeUnit.MILLISECONDS.toNanos(40_300),
                        TimeUnit.MILLISECONDS.toNanos(40_300)));

        assertUnavailableAfterConflicts(
                e,
                "gave up after trying for 40.3s: the lock index [.esrel-treelocks-1] was unavailable (1 attempts failed, 1"
                        + " of them because the table had changed since it was read, after waiting 40.3s per write for the"
                        + " lock index)");
        assertThat(e.getSuppressed()).isEmpty();
    }

    /**
     * Seen in FrozenMasterLockFaultIT: 13 conflicts in 42.3 s, 3.3 s a write on average, most of them quick: one write
     * waited out the freeze of the lock primary's node. Still the lock index, not contention.
     */
    @Test
    void shouldNotBlameContentionWhenOneWriteWaitedForTheLockIndex() {
        ElasticsearchStatusException e = LockIndexFailures.gaveUp(
                "fs",
                new Retries(
                        13, 0, CONFLICT, null, TimeUnit.MILLISECONDS.toNanos(42_300), TimeUnit.SECONDS.toNanos(38)));

        assertUnavailableAfterConflicts(
                e,
                "gave up after trying for 42.3s: the lock index [.esrel-treelocks-1] was unavailable (13 attempts failed,"
                        + " 13 of them because the table had changed since it was read, one write waiting 38s for the lock"
                        + " index)");
    }

    /** The lock index's 503 for retries that met only conflicts, the last one its cause: never called contention. */
    private static void assertUnavailableAfterConflicts(ElasticsearchStatusException e, String reason) {
        assertThat(e.status()).isEqualTo(RestStatus.SERVICE_UNAVAILABLE);
        assertThat(e.getMessage())
                .isEqualTo(reason + "; last failure: [version_conflict_engine_exception: " + CONFLICT.getMessage()
                        + "]; retry")
                .doesNotContain("concurrently", "changed by another node");
        assertThat(e.getCause()).isSameAs(CONFLICT);
    }

    @Test
    void shouldBlameContentionOnlyWhenEveryAttemptMetAConflict() {
        ElasticsearchStatusException e = LockIndexFailures.gaveUp(
                "fs",
                new Retries(57, 0, CONFLICT, null, TimeUnit.SECONDS.toNanos(30), TimeUnit.MILLISECONDS.toNanos(180)));

        assertThat(e.status()).isEqualTo(RestStatus.SERVICE_UNAVAILABLE);
        assertThat(e.getMessage())
                .isEqualTo(
                        "gave up after trying for 30s: the lock table of [fs] was changed by another node before each of the 57 writes; retry");
        assertThat(e.getCause()).isSameAs(CONFLICT);
    }
}
