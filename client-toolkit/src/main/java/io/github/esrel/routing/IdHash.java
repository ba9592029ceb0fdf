package io.github.esrel.routing;

/**
 * The two hashes of the duplicate-id scan: a 64-bit fingerprint of a document key (index and id), counted in
 * memory, and the spill partition of a key, one independent hash per partitioning level. Neither is
 * Elasticsearch's routing hash ({@link Murmur3}): a partition must not follow the shard a document is on.
 *
 * <p>Both are a Murmur3-style 64-bit hash over the UTF-16 code units of the id (four per block), with the
 * finalizer of Murmur3's x64 variant; different seeds give independent values. Pure functions.
 */
final class IdHash {

    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;
    private static final long FINGERPRINT_SEED = 0x2545F4914F6CDD1DL;
    private static final long PARTITION_SEED = 0x9E3779B97F4A7C15L;

    private IdHash() {}

    /** A 64-bit hash of the UTF-16 code units of {@code s}; {@code seed} selects an independent function. */
    static long hash64(String s, long seed) {
        int n = s.length();
        long h = seed ^ (n * 0xff51afd7ed558ccdL);
        int i = 0;
        for (; i + 4 <= n; i += 4) {
            long k = s.charAt(i)
                    | (long) s.charAt(i + 1) << 16
                    | (long) s.charAt(i + 2) << 32
                    | (long) s.charAt(i + 3) << 48;
            h ^= mixBlock(k);
            h = Long.rotateLeft(h, 27) * 5 + 0x52dce729;
        }
        long k = 0;
        for (int shift = 0; i < n; i++, shift += 16) {
            k |= (long) s.charAt(i) << shift;
        }
        h ^= mixBlock(k);
        return fmix64(h ^ n);
    }

    /**
     * The fingerprint of a key: equal keys have equal fingerprints; two different keys share one with
     * probability 2<sup>-64</sup>. Never 0 (the empty slot of {@link FingerprintTable}).
     */
    static long fingerprint(int indexOrdinal, String id) {
        long f = fmix64(hash64(id, FINGERPRINT_SEED) + indexOrdinal * C1);
        return f == 0 ? 1 : f;
    }

    /** The partition of a key among {@code partitions} at partitioning {@code level} (0 for the first). */
    static int partition(int indexOrdinal, String id, int level, int partitions) {
        long h = fmix64(hash64(id, PARTITION_SEED + level * C2) + indexOrdinal * C1);
        // Multiply-shift: the high bits of h decide, uniformly for any partition count.
        return (int) Math.multiplyHigh(h >>> 1, (long) partitions << 1);
    }

    private static long mixBlock(long k) {
        k *= C1;
        k = Long.rotateLeft(k, 31);
        return k * C2;
    }

    private static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
