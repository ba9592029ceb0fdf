package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.VersionedStore.Failure;
import io.github.esrel.plugin.lock.VersionedStore.Retries;
import org.elasticsearch.ElasticsearchException;
import org.elasticsearch.ElasticsearchStatusException;
import org.elasticsearch.ExceptionsHelper;
import org.elasticsearch.action.PrimaryMissingActionException;
import org.elasticsearch.action.support.TransportActions;
import org.elasticsearch.action.support.replication.ReplicationOperation;
import org.elasticsearch.cluster.block.ClusterBlockException;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.index.engine.VersionConflictEngineException;
import org.elasticsearch.node.NodeClosedException;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.transport.ConnectTransportException;
import org.elasticsearch.transport.ReceiveTimeoutTransportException;

/**
 * What a failure of the lock index means, and what a caller hears when the retries run out. Pure.
 *
 * <p>Retryable ({@link Failure#TRANSIENT}): a node that cannot be reached or went away (connect and transport
 * failures, a closed node, a request that timed out on its way), a shard without an active primary or one that
 * changed while the request ran (a primary-term change during failover), a retryable cluster block (no master),
 * and whatever Elasticsearch answers with 503, 504, 408 or 429. A caller whose retries of any of these ran out
 * gets one answer: a 503 {@code status_exception} that says how long it was tried, how the attempts failed
 * and what the last cause was, with that cause attached. Everything else keeps its own status.
 */
final class LockTableFailures {

    private LockTableFailures() {}

    /** @see VersionedStore#classify */
    static Failure classify(Exception failure) {
        Throwable t = ExceptionsHelper.unwrapCause(failure);
        if (t instanceof VersionConflictEngineException) {
            return Failure.CONFLICT;
        }
        if (t instanceof ClusterBlockException block) {
            // A read-only or flood-stage block does not lift by waiting a few seconds: say so at once.
            return block.retryable() ? Failure.TRANSIENT : Failure.PERMANENT;
        }
        if (TransportActions.isShardNotAvailableException(t)
                || t instanceof ConnectTransportException
                || t instanceof ReceiveTimeoutTransportException
                || t instanceof NodeClosedException
                || t instanceof PrimaryMissingActionException
                || t instanceof ReplicationOperation.RetryOnPrimaryException) {
            return Failure.TRANSIENT;
        }
        RestStatus status = ExceptionsHelper.status(t);
        boolean transientStatus = status == RestStatus.SERVICE_UNAVAILABLE
                || status == RestStatus.TOO_MANY_REQUESTS
                || status == RestStatus.GATEWAY_TIMEOUT
                || status == RestStatus.REQUEST_TIMEOUT;
        return transientStatus ? Failure.TRANSIENT : Failure.PERMANENT;
    }

    /**
     * The answer for a request whose retries ran out: a 503 naming what happened. Only conflicts: the table kept
     * changing under it (other nodes won every race). Any transient failure: the lock index was unavailable, the
     * last transient failure being the cause (and the last conflict, if any, suppressed).
     *
     * @param namespace the namespace whose table was being changed
     */
    static ElasticsearchStatusException gaveUp(String namespace, Retries retries) {
        String tried = TimeValue.timeValueNanos(retries.triedNanos()).toString();
        int attempts = retries.conflicts() + retries.transientFailures();
        if (retries.transientFailures() == 0) {
            return new ElasticsearchStatusException(
                    "gave up after trying for {}: the lock table of [{}] was changed by another node before each of the {} writes; retry",
                    RestStatus.SERVICE_UNAVAILABLE,
                    retries.lastConflict(),
                    tried,
                    namespace,
                    attempts);
        }
        String conflicts = retries.conflicts() == 0
                ? ""
                : ", " + retries.conflicts() + " of them because the table had changed since it was read";
        ElasticsearchStatusException e = new ElasticsearchStatusException(
                "gave up after trying for {}: the lock index [{}] was unavailable ({} attempts failed{}); last failure: {}; retry",
                RestStatus.SERVICE_UNAVAILABLE,
                retries.lastTransient(),
                tried,
                TreeLockIndex.NAME,
                attempts,
                conflicts,
                describe(retries.lastTransient()));
        if (retries.lastConflict() != null) {
            e.addSuppressed(retries.lastConflict());
        }
        return e;
    }

    /** {@code [type: message]}, the way Elasticsearch names an exception in an error body. */
    static String describe(Exception failure) {
        Throwable t = ExceptionsHelper.unwrapCause(failure);
        return "[" + ElasticsearchException.getExceptionName(t) + ": " + t.getMessage() + "]";
    }
}
