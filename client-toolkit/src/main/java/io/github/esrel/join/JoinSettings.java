package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.Time;
import java.time.Duration;

/**
 * The settings of one {@link Join} (see its {@link Join.Builder}), handed to the plans that run its
 * calls.
 *
 * @param maxParents the fan-out cap: the most parents one call reads
 * @param pageSize parents read per search
 * @param pitKeepAlive how long a point in time stays open between two pages
 * @param consistentPaging whether the first page of {@link Join#childrenOf} reads a point in time too
 * @param maxProbedChildren the most children children-first reads per call
 */
record JoinSettings(
        int maxParents, int pageSize, Duration pitKeepAlive, boolean consistentPaging, int maxProbedChildren) {

    /** The keep-alive as sent to Elasticsearch: whole seconds, at least one. */
    Time keepAlive() {
        return Time.of(t -> t.time(Math.max(1, pitKeepAlive.toSeconds()) + "s"));
    }

    /** Parent keys the first round trip of {@link JoinQuery.Plan#AUTO} reads: never more than a page or the cap. */
    int previewKeys() {
        return Math.min(Join.PREVIEW_KEYS, Math.min(pageSize, maxParents));
    }
}
