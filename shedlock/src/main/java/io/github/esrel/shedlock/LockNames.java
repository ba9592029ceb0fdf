package io.github.esrel.shedlock;

import io.github.esrel.path.TreePath;
import java.util.Objects;

/**
 * The injective mapping of ShedLock lock names to one path segment each under a prefix. A name becomes one segment
 * with {@code %} and {@code /}, every character {@link TreePath} forbids in a segment (controls U+0000–U+001F and
 * U+007F–U+009F, unpaired surrogates) and the dots of a {@code .} or {@code ..} name percent-encoded: {@code %XX}
 * for a character up to U+00FF, {@code %uXXXX} above (upper-case hex). As {@code %} itself is always encoded, the
 * decoding is unambiguous, so distinct names give distinct segments, and no name nests under another.
 */
final class LockNames {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final TreePath prefix;

    LockNames(TreePath prefix) {
        this.prefix = Objects.requireNonNull(prefix, "prefix cannot be null");
    }

    TreePath prefix() {
        return prefix;
    }

    /**
     * The path of a lock name: the prefix and the name's segment.
     *
     * @throws IllegalArgumentException if the name is empty or the path too long for {@link TreePath}
     */
    TreePath path(String name) {
        return prefix.child(segment(name));
    }

    /** The name whose path this is, or {@code null} if it is not a child of the prefix. */
    String name(TreePath path) {
        if (!path.isDescendantOf(prefix) || path.depth() != prefix.depth() + 1) {
            return null;
        }
        return decode(path.name());
    }

    static String segment(String name) {
        Objects.requireNonNull(name, "name cannot be null");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a lock name must not be empty");
        }
        if (name.equals(".")) {
            return "%2E";
        }
        if (name.equals("..")) {
            return "%2E%2E";
        }
        StringBuilder sb = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean encode;
            if (Character.isHighSurrogate(c)) {
                encode = i + 1 >= name.length() || !Character.isLowSurrogate(name.charAt(i + 1));
                if (!encode) {
                    if (sb != null) {
                        sb.append(c).append(name.charAt(i + 1));
                    }
                    i++;
                    continue;
                }
            } else {
                encode = c == '%' || c == '/' || c <= 0x1F || (c >= 0x7F && c <= 0x9F) || Character.isLowSurrogate(c);
            }
            if (encode) {
                if (sb == null) {
                    sb = new StringBuilder(name.length() + 8).append(name, 0, i);
                }
                sb.append('%');
                if (c <= 0xFF) {
                    sb.append(HEX[c >> 4]).append(HEX[c & 0xF]);
                } else {
                    sb.append('u')
                            .append(HEX[(c >> 12) & 0xF])
                            .append(HEX[(c >> 8) & 0xF])
                            .append(HEX[(c >> 4) & 0xF])
                            .append(HEX[c & 0xF]);
                }
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? name : sb.toString();
    }

    static String decode(String segment) {
        StringBuilder sb = new StringBuilder(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c != '%') {
                sb.append(c);
            } else if (i + 1 < segment.length() && segment.charAt(i + 1) == 'u') {
                sb.append((char) Integer.parseInt(segment.substring(i + 2, i + 6), 16));
                i += 5;
            } else {
                sb.append((char) Integer.parseInt(segment.substring(i + 1, i + 3), 16));
                i += 2;
            }
        }
        return sb.toString();
    }
}
