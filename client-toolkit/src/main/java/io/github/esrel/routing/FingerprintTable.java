package io.github.esrel.routing;

/**
 * Counts 64-bit fingerprints in two primitive arrays (open addressing, linear probing): 10 bytes per slot,
 * at most 3/4 full, so 13 to 27 bytes per distinct fingerprint, and no object per entry. Counts saturate at
 * {@value #MAX_COUNT}. Not thread-safe.
 */
final class FingerprintTable {

    static final int MAX_COUNT = Short.MAX_VALUE;
    private static final int MAX_CAPACITY = 1 << 30;

    private long[] keys;
    private short[] counts;
    private int mask;
    private int size;
    private long duplicated;
    private long extraCopies;

    /** A table that holds {@code expected} fingerprints without growing. */
    FingerprintTable(long expected) {
        int capacity = capacityFor(expected);
        keys = new long[capacity];
        counts = new short[capacity];
        mask = capacity - 1;
    }

    /** The smallest power of two that holds {@code expected} entries at most 3/4 full (at least 16). */
    static int capacityFor(long expected) {
        long needed = Math.max(16, expected + expected / 3 + 1);
        if (needed > MAX_CAPACITY) {
            return MAX_CAPACITY;
        }
        return Integer.highestOneBit((int) needed - 1) << 1;
    }

    /**
     * Counts one more occurrence.
     *
     * @param fingerprint the fingerprint, not 0
     * @return its count after this one (1 the first time), at most {@value #MAX_COUNT}
     */
    int add(long fingerprint) {
        int slot = (int) (fingerprint ^ fingerprint >>> 32) & mask;
        while (true) {
            long k = keys[slot];
            if (k == 0) {
                if (size + 1 > keys.length - keys.length / 4) {
                    grow();
                    return add(fingerprint);
                }
                keys[slot] = fingerprint;
                counts[slot] = 1;
                size++;
                return 1;
            }
            if (k == fingerprint) {
                int c = counts[slot];
                if (c < MAX_COUNT) {
                    counts[slot] = (short) ++c;
                    extraCopies++;
                    if (c == 2) {
                        duplicated++;
                    }
                }
                return c;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** Distinct fingerprints counted. */
    int size() {
        return size;
    }

    /** Fingerprints counted more than once. */
    long duplicated() {
        return duplicated;
    }

    /** Occurrences beyond the first, summed over every fingerprint. */
    long extraCopies() {
        return extraCopies;
    }

    /** The bytes of the two arrays. */
    long bytes() {
        return (long) keys.length * (Long.BYTES + Short.BYTES);
    }

    private void grow() {
        if (keys.length >= MAX_CAPACITY) {
            throw new IllegalStateException(
                    "more than " + (MAX_CAPACITY - MAX_CAPACITY / 4) + " fingerprints in one table");
        }
        long[] oldKeys = keys;
        short[] oldCounts = counts;
        keys = new long[oldKeys.length << 1];
        counts = new short[oldKeys.length << 1];
        mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            long k = oldKeys[i];
            if (k != 0) {
                int slot = (int) (k ^ k >>> 32) & mask;
                while (keys[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = k;
                counts[slot] = oldCounts[i];
            }
        }
    }
}
