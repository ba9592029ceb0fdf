package io.github.esrel.spring.integration;

import io.github.esrel.path.TreePath;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Maps a registry key to one path segment under the registry's prefix: the key's {@code toString()}, with every byte
 * of its UTF-8 form outside {@code [A-Za-z0-9_-]} written as {@code %XX}, and an unpaired surrogate (which has no
 * UTF-8 form: {@code getBytes} would write it as {@code ?}) as {@code %uXXXX}. So a key never nests ({@code "a/b"} is
 * one segment, {@code a%2Fb}), is never {@code "."} or {@code ".."}, and two different keys never share a path (no
 * escape is ambiguous: {@code u} is not a hex digit); the empty key is {@code "%"} (no escape is a lone {@code %}).
 */
final class LockKeys {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LockKeys() {}

    static String segment(Object key) {
        String s = Objects.requireNonNull(key, "lockKey cannot be null").toString();
        if (s.isEmpty()) {
            return "%";
        }
        StringBuilder out = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if ((cp >= 'a' && cp <= 'z')
                    || (cp >= 'A' && cp <= 'Z')
                    || (cp >= '0' && cp <= '9')
                    || cp == '_'
                    || cp == '-') {
                out.append((char) cp);
            } else if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
                out.append("%u").append(HEX[(cp >> 12) & 0xF]).append(HEX[(cp >> 8) & 0xF]);
                out.append(HEX[(cp >> 4) & 0xF]).append(HEX[cp & 0xF]);
            } else {
                for (byte b : Character.toString(cp).getBytes(StandardCharsets.UTF_8)) {
                    int c = b & 0xFF;
                    out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
                }
            }
        }
        return out.toString();
    }

    static TreePath path(TreePath prefix, Object key) {
        return prefix.child(segment(key));
    }
}
