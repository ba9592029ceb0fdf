package io.github.esrel.spring.integration;

import io.github.esrel.path.TreePath;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Maps a registry key to one path segment under the registry's prefix: the key's {@code toString()}, with every byte
 * of its UTF-8 form outside {@code [A-Za-z0-9_-]} written as {@code %XX}. So a key never nests ({@code "a/b"} is one
 * segment, {@code a%2Fb}), is never {@code "."} or {@code ".."}, and two different keys never share a path; the empty
 * key is {@code "%"} (no escape is a lone {@code %}).
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
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.toString();
    }

    static TreePath path(TreePath prefix, Object key) {
        return prefix.child(segment(key));
    }
}
