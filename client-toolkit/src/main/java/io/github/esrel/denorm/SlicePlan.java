package io.github.esrel.denorm;

import io.github.esrel.doc.DocStream;

/**
 * How many slices a job reads its children with: one per primary shard of the child index, at most the
 * configured bound. Never more slices than shards: up to one per shard, Elasticsearch hands each slice whole
 * shards and a slice is a plain search of them; beyond that it splits shards by document, and every slice then
 * visits every document of its shards to filter them, which costs more than it parallelizes.
 */
final class SlicePlan {

    /**
     * The default bound: one stream. Measured on a 2-core machine (benchmark {@code propagation-shards}, 3 nodes,
     * 100,000 children, 6 shards), six slices were slower than one stream: a slice's bulk touches only its own
     * shard, where one stream's bulk fans out to every primary. Slicing is for clusters whose nodes have cores to
     * spare, measured there.
     */
    static final int DEFAULT_MAX = 1;

    /** The highest bound one may configure. */
    static final int MAX = 64;

    private SlicePlan() {}

    /**
     * @param maxSlices the configured bound, 1..{@link #MAX}
     * @param primaryShards the primary shards the child index (or pattern, or alias) has; 0 or less when unknown
     * @param routedByParent whether a parent's children all live on one shard (found through its routing)
     * @param mode how the children are streamed: a scroll is read as one stream
     * @return the number of slices, at least 1
     */
    static int slices(int maxSlices, int primaryShards, boolean routedByParent, DocStream.Mode mode) {
        if (routedByParent || mode == DocStream.Mode.SCROLL || primaryShards <= 1) {
            return 1;
        }
        return Math.max(1, Math.min(maxSlices, primaryShards));
    }
}
