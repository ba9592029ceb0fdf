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
 * @param owner who runs the jobs (process and propagator), written into checkpoints
 */
record PropagationSettings(ElasticsearchClient client, Relation relation, Checkpoints checkpoints, int batchSize,
                           double maxDocsPerSecond, RetryPolicy retryPolicy, RetryPolicy readPolicy,
                           PropagationListener listener, Propagator.WriteMode writeMode, DocStream.Mode streaming,
                           Duration keepAlive, boolean refresh, int maxPasses, Duration checkpointInterval,
                           boolean ignoreStamps, int maxReportedFailures, boolean prefetch, int bulksInFlight,
                           String owner) {

    /** Whether children are rewritten by partial updates rather than whole. */
    boolean partial() {
        return writeMode == Propagator.WriteMode.PARTIAL_UPDATE;
    }
}
