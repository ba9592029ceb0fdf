package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.doc.DocStream;
import io.github.esrel.retry.RetryPolicy;
import java.time.Duration;

/**
 * What a {@link Propagator} was built with, as the jobs it runs read it: one immutable value instead of the
 * propagator's fields.
 *
 * @param readPolicy the retry policy for reads and checkpoints: the write policy, retrying only rejections
 * @param bulksInFlight bulk requests in flight per job; 0 = chosen from the cluster's write thread pools at job start
 * @param maxSlices the most slices a job reads its children with (one per shard up to this)
 * @param owner who runs the jobs (process and propagator), written into checkpoints
 */
record PropagationSettings(
        ElasticsearchClient client,
        Relation relation,
        Checkpoints checkpoints,
        int batchSize,
        double maxDocsPerSecond,
        RetryPolicy retryPolicy,
        RetryPolicy readPolicy,
        PropagationListener listener,
        Propagator.WriteMode writeMode,
        DocStream.Mode streaming,
        Duration keepAlive,
        boolean refresh,
        int maxPasses,
        Duration checkpointInterval,
        boolean ignoreStamps,
        int maxReportedFailures,
        boolean prefetch,
        int bulksInFlight,
        int maxSlices,
        String owner) {

    /** These settings with {@link #bulksInFlight} resolved: as configured, or asked of the cluster (0 = auto). */
    PropagationSettings withBulksInFlightResolved() {
        return bulksInFlight > 0 ? this : withBulksInFlight(BulksInFlight.of(client));
    }

    private PropagationSettings withBulksInFlight(int inFlight) {
        return new PropagationSettings(
                client,
                relation,
                checkpoints,
                batchSize,
                maxDocsPerSecond,
                retryPolicy,
                readPolicy,
                listener,
                writeMode,
                streaming,
                keepAlive,
                refresh,
                maxPasses,
                checkpointInterval,
                ignoreStamps,
                maxReportedFailures,
                prefetch,
                inFlight,
                maxSlices,
                owner);
    }

    /** Whether children are rewritten by partial updates rather than whole. */
    boolean partial() {
        return writeMode == Propagator.WriteMode.PARTIAL_UPDATE;
    }
}
