package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.commit.VersionedStore;
import io.github.esrel.plugin.lock.commit.VersionedStore.Failure;
import io.github.esrel.plugin.lock.commit.VersionedStore.Retries;
import java.util.Objects;
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
public final class LockIndexFailures {

    private LockIndexFailures() {}

    /**
     * What a failed read or write of the lock index means for the group commit ({@link VersionedStore#classify}).
     *
     * @param failure what the read or write failed with, as it came, wrapped or not
     * @return a conflict, a transient failure (retried) or a permanent one
     */
    public static Failure classify(Exception failure) {
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
     * The answer for a request whose retries ran out: a 503 naming what happened. Only conflicts, each write
     * quick: the table kept changing under it (other nodes won every race). Any transient failure, or writes that
     * each took seconds ({@link #stalled}): the lock index was unavailable, the last transient failure (else the
     * last conflict) being the cause, and the last conflict, if another, suppressed.
     *
     * @param namespace the namespace whose table was being changed
     * @param retries   what the attempts met
     * @return the 503 to answer
     */
    public static ElasticsearchStatusException gaveUp(String namespace, Retries retries) {
        String tried = TimeValue.timeValueNanos(retries.triedNanos()).toString();
        int attempts = retries.conflicts() + retries.transientFailures();
        if (retries.transientFailures() == 0 && !stalled(retries)) {
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
        String waited = retries.transientFailures() > 0
                ? ""
                : retries.triedNanos() / attempts >= STALLED_WRITE_NANOS
                        ? ", after waiting " + TimeValue.timeValueNanos(retries.triedNanos() / attempts)
                                + " per write for the lock index"
                        : ", one write waiting " + TimeValue.timeValueNanos(retries.slowestAttemptNanos())
                                + " for the lock index";
        Exception last = retries.lastTransient() != null ? retries.lastTransient() : retries.lastConflict();
        ElasticsearchStatusException e = new ElasticsearchStatusException(
                "gave up after trying for {}: the lock index [{}] was unavailable ({} attempts failed{}{}); last failure: {}; retry",
                RestStatus.SERVICE_UNAVAILABLE,
                last,
                tried,
                TreeLockIndex.NAME,
                attempts,
                conflicts,
                waited,
                // Given up after failed attempts: one of them was the last.
                describe(Objects.requireNonNull(last)));
        if (retries.lastConflict() != null && retries.lastConflict() != last) {
            e.addSuppressed(retries.lastConflict());
        }
        return e;
    }

    /**
     * Whether the writes took so long that the lock index, not other nodes, is what the caller waited for: a
     * write of the table takes milliseconds, so conflicts alone fill the retry time with dozens of attempts. A
     * few writes in that time were each stuck, typically on a primary that froze or failed over, and their
     * conflict came only once it answered again (the table having moved on meanwhile). One such write is enough:
     * FrozenMasterLockFaultIT saw 13 conflicts in 42 s, most of them quick, one write having waited out the freeze.
     */
    static boolean stalled(Retries retries) {
        int attempts = retries.conflicts() + retries.transientFailures();
        return attempts > 0
                && (retries.triedNanos() / attempts >= STALLED_WRITE_NANOS
                        || retries.slowestAttemptNanos() >= STALLED_WRITE_NANOS);
    }

    /** A write of the lock table this slow was waiting for the lock index, not losing races. */
    static final long STALLED_WRITE_NANOS = TimeValue.timeValueSeconds(5).nanos();

    /** {@code [type: message]}, the way Elasticsearch names an exception in an error body. */
    static String describe(Exception failure) {
        Throwable t = ExceptionsHelper.unwrapCause(failure);
        return "[" + ElasticsearchException.getExceptionName(t) + ": " + t.getMessage() + "]";
    }
}
