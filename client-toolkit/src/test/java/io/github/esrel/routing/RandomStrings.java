package io.github.esrel.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Random ids for routing tests. */
final class RandomStrings {

    private RandomStrings() {}

    /** ASCII, other BMP characters, supplementary characters (surrogate pairs) and lone surrogates, 1–40 chars. */
    static List<String> unicode(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int len = 1 + random.nextInt(40);
            StringBuilder sb = new StringBuilder(len * 2);
            for (int j = 0; j < len; j++) {
                int kind = random.nextInt(10);
                if (kind < 5) {
                    sb.append((char) (0x20 + random.nextInt(0x5F)));
                } else if (kind < 8) {
                    sb.append((char) (0xA0 + random.nextInt(0xD7FF - 0xA0)));
                } else if (kind < 9) {
                    sb.appendCodePoint(0x10000 + random.nextInt(0x10FFFF - 0x10000));
                } else {
                    sb.append((char) (0xD800 + random.nextInt(0x800)));
                }
            }
            out.add(sb.toString());
        }
        return out;
    }
}
