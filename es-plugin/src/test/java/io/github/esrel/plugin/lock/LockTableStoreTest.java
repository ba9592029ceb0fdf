package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.VersionedStore.Failure;

import org.elasticsearch.ElasticsearchStatusException;
import org.elasticsearch.action.UnavailableShardsException;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.util.concurrent.EsRejectedExecutionException;
import org.elasticsearch.index.IndexNotFoundException;
import org.elasticsearch.index.engine.VersionConflictEngineException;
import org.elasticsearch.index.shard.ShardId;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.transport.RemoteTransportException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What the lock index's failures mean for the group commit: retried at once, after a backoff, or not at all. */
class LockTableStoreTest {

    static {
        // Elasticsearch's exceptions log when their classes load: that needs its logging set up (as in TestIndices).
        LogConfigurator.configureESLogging();
    }

    private static final ShardId SHARD = new ShardId(TreeLockIndex.NAME, "_na_", 0);

    private final LockTableStore store = new LockTableStore(null, null, () -> 0);

    @Test
    void shouldRedoAVersionConflictAtOnceEvenFromAnotherNode() {
        VersionConflictEngineException conflict = new VersionConflictEngineException(SHARD, "fs", "required seqNo [3]");
        assertThat(store.classify(conflict)).isEqualTo(Failure.CONFLICT);
        assertThat(store.classify(new RemoteTransportException("node-2", conflict))).isEqualTo(Failure.CONFLICT);
    }

    @Test
    void shouldRetryWhatHealsByItself() {
        assertThat(store.classify(new UnavailableShardsException(SHARD, "primary shard is not active"))).isEqualTo(Failure.TRANSIENT);
        assertThat(store.classify(new EsRejectedExecutionException("write queue full"))).isEqualTo(Failure.TRANSIENT);
        // A write whose index went away between read and write: the retry's read finds no table and creates it.
        assertThat(store.classify(new IndexNotFoundException(TreeLockIndex.NAME))).isEqualTo(Failure.TRANSIENT);
        for (RestStatus status : new RestStatus[] { RestStatus.SERVICE_UNAVAILABLE, RestStatus.GATEWAY_TIMEOUT, RestStatus.REQUEST_TIMEOUT }) {
            assertThat(store.classify(new ElasticsearchStatusException("busy", status))).as("%s", status).isEqualTo(Failure.TRANSIENT);
        }
    }

    @Test
    void shouldNotRetryWhatRetryingCannotMend() {
        assertThat(store.classify(new IllegalStateException("the lock table document is corrupt"))).isEqualTo(Failure.PERMANENT);
        assertThat(store.classify(new IllegalArgumentException("mapping"))).isEqualTo(Failure.PERMANENT);
        assertThat(store.classify(new ElasticsearchStatusException("forbidden", RestStatus.FORBIDDEN))).isEqualTo(Failure.PERMANENT);
    }

    @Test
    void shouldAnswerUnavailableWhenConflictsOutlastTheRetries() {
        VersionConflictEngineException conflict = new VersionConflictEngineException(SHARD, "fs", "required seqNo [3]");
        Exception contended = store.contended(conflict);

        assertThat(contended).isInstanceOf(ElasticsearchStatusException.class)
            .hasMessage("the lock table was changed concurrently on every attempt for 30s; retry")
            .hasCause(conflict);
        assertThat(((ElasticsearchStatusException) contended).status()).isEqualTo(RestStatus.SERVICE_UNAVAILABLE);
    }
}
