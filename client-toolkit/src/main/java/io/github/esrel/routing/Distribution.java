package io.github.esrel.routing;

import java.util.Arrays;

/**
 * Documents per shard and the skew they make. Immutable.
 *
 * <p>{@code skew} is the fullest shard's count divided by the mean: 1.0 is perfectly even, and a
 * skew of {@code number_of_shards} means everything sits on one shard.
 */
public final class Distribution {

    private final long[] counts;

    Distribution(long[] counts) {
        this.counts = counts.clone();
    }

    /**
     * Builds a distribution from counts indexed by shard id (as returned by the plugin).
     *
     * @param countsByShard documents per shard, indexed by shard id; copied
     * @return the distribution
     */
    public static Distribution of(long... countsByShard) {
        return new Distribution(countsByShard);
    }

    /**
     * Documents per shard, indexed by shard id, zeros included. A copy.
     *
     * @return a new array of {@link #shards()} counts
     */
    public long[] counts() {
        return counts.clone();
    }

    /**
     * Documents on one shard.
     *
     * @param shard the shard id, from 0 to {@code shards() - 1}
     * @return the number of documents on that shard
     * @throws ArrayIndexOutOfBoundsException if {@code shard} is out of range
     */
    public long count(int shard) {
        return counts[shard];
    }

    /**
     * The number of shards, those without documents included.
     *
     * @return the number of shards
     */
    public int shards() {
        return counts.length;
    }

    /**
     * Documents on all shards together.
     *
     * @return the total count
     */
    public long total() {
        return Arrays.stream(counts).sum();
    }

    /**
     * Documents on the fullest shard.
     *
     * @return the largest count, or 0 when there are no shards
     */
    public long max() {
        return Arrays.stream(counts).max().orElse(0);
    }

    /**
     * max / mean; 0 when there are no documents.
     *
     * @return the skew: 1.0 for a perfectly even spread, up to {@link #shards()} when all documents
     *     are on one shard
     */
    public double skew() {
        long total = total();
        return total == 0 ? 0.0 : max() / ((double) total / counts.length);
    }

    /**
     * Shards that received no document.
     *
     * @return the number of empty shards
     */
    public int emptyShards() {
        return (int) Arrays.stream(counts).filter(c -> c == 0).count();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Distribution && Arrays.equals(counts, ((Distribution) o).counts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(counts);
    }

    @Override
    public String toString() {
        return "Distribution{counts=" + Arrays.toString(counts) + ", skew=" + String.format("%.2f", skew()) + '}';
    }
}
