package io.github.esrel.routing;

/**
 * Murmur3 x86_32 with seed 0 over the UTF-16 code units of a string written little-endian: the hash
 * Elasticsearch's {@code Murmur3HashFunction.hash(String)} computes for routing.
 *
 * <p>Hashes the chars in place instead of copying them into a byte array first: two chars are one
 * 4-byte block ({@code lo(c0) hi(c0) lo(c1) hi(c1)} read little-endian is {@code c0 | c1 << 16}), and
 * an odd trailing char is the 2-byte tail. Bit-exact with the server, allocation-free.
 */
final class Murmur3 {

    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private Murmur3() {}

    static int hash(CharSequence s) {
        final int chars = s.length();
        int h = 0;
        int i = 0;
        for (; i + 1 < chars; i += 2) {
            int k = s.charAt(i) | (s.charAt(i + 1) << 16);
            h ^= mixK(k);
            h = Integer.rotateLeft(h, 13);
            h = h * 5 + 0xe6546b64;
        }
        if (i < chars) {
            h ^= mixK(s.charAt(i));
        }
        h ^= chars * 2;
        return fmix(h);
    }

    private static int mixK(int k) {
        k *= C1;
        k = Integer.rotateLeft(k, 15);
        return k * C2;
    }

    private static int fmix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
