package io.github.esrel.path;

import java.util.Objects;
import java.util.Optional;

/**
 * The one mapping from a lock name to a path: each name becomes <em>one</em> segment under a prefix, so that
 * {@code a/b} never nests under {@code a}, and the mapping can be read back. esrel's adapters (ShedLock's
 * {@code EsrelLockProvider}, Spring Integration's {@code EsrelLockRegistry}) use it, so the same name gives the same
 * path in both, and an application can use it for names of its own.
 *
 * <pre>{@code
 * PathNames names = PathNames.under(TreePath.of("/jobs"));
 * names.path("nightly-report");           // /jobs/nightly-report
 * names.path("reports/2026.csv");         // /jobs/reports%2F2026.csv: one segment
 * names.name(TreePath.of("/jobs/a%2Fb")); // Optional[a/b]
 * }</pre>
 *
 * <p><b>The encoding.</b> A name is kept as it is, except for what a segment of {@link TreePath} cannot hold and the
 * escape character itself: {@code %}, {@code /}, control characters (U+0000–U+001F, U+007F–U+009F) and unpaired
 * surrogates are written {@code %XX} up to U+00FF and {@code %uXXXX} above (upper-case hex); the names {@code .} and
 * {@code ..} are written {@code %2E} and {@code %2E%2E}; the empty name is {@code %} alone. As {@code %} is always
 * escaped, every segment decodes one way only: distinct names give distinct paths, no name's path lies below
 * another's, and {@link #name(TreePath)} gives back the name of every path {@link #path(String)} gave.
 *
 * <p><b>Limits.</b> The path is a {@link TreePath}: at most {@value TreePath#MAX_BYTES} UTF-8 bytes with the prefix
 * (so a name of ASCII letters under {@code /shedlock} may have up to 1,014 of them).
 *
 * <p>Immutable and thread-safe.
 */
public final class PathNames {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** The segment of the empty name: no other name's segment is a lone {@code %}. */
    private static final String EMPTY = "%";

    private final TreePath prefix;

    private PathNames(TreePath prefix) {
        this.prefix = prefix;
    }

    /**
     * The mapping of names to the children of {@code prefix}.
     *
     * @param prefix the path every name is one segment under; {@link TreePath#ROOT} for none
     * @return the mapping
     * @throws NullPointerException if {@code prefix} is {@code null}
     */
    public static PathNames under(TreePath prefix) {
        return new PathNames(Objects.requireNonNull(prefix, "prefix cannot be null"));
    }

    /**
     * The path every name is one segment under.
     *
     * @return the prefix
     */
    public TreePath prefix() {
        return prefix;
    }

    /**
     * The path of a name: the prefix and the name's {@linkplain #segment(String) segment}.
     *
     * @param name the name, not {@code null}; any string, the empty one included
     * @return the path, one level below the prefix
     * @throws NullPointerException if {@code name} is {@code null}
     * @throws IllegalArgumentException if the path would be longer than {@value TreePath#MAX_BYTES} UTF-8 bytes (or
     *     the prefix already has {@value TreePath#MAX_DEPTH} segments); the message names the name and the limit
     */
    public TreePath path(String name) {
        String segment = segment(name);
        try {
            return prefix.child(segment);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "the name \"" + shorten(segment) + "\" does not fit a path under " + shorten(prefix.value()) + ": "
                            + e.getMessage() + " (use a shorter name or prefix)",
                    e);
        }
    }

    /**
     * The name whose path this is: the inverse of {@link #path(String)}.
     *
     * @param path a path, not {@code null}
     * @return the name, or empty if {@code path} is not a child of the prefix or its last segment is not the segment
     *     of any name (such as {@code %41}, which {@link #segment(String)} would write {@code A})
     * @throws NullPointerException if {@code path} is {@code null}
     */
    public Optional<String> name(TreePath path) {
        Objects.requireNonNull(path, "path cannot be null");
        if (path.depth() != prefix.depth() + 1 || !path.isDescendantOf(prefix)) {
            return Optional.empty();
        }
        try {
            return Optional.of(decode(path.name()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * The segment of a name (see the class comment): the name itself unless it holds what a segment cannot.
     *
     * @param name the name, not {@code null}
     * @return the segment, never empty
     * @throws NullPointerException if {@code name} is {@code null}
     */
    public static String segment(String name) {
        Objects.requireNonNull(name, "name cannot be null");
        if (name.isEmpty()) {
            return EMPTY;
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
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                if (sb != null) {
                    sb.append(c).append(name.charAt(i + 1));
                }
                i++;
                continue;
            }
            boolean escape = c == '%' || c == '/' || Character.isISOControl(c) || Character.isSurrogate(c);
            if (escape) {
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

    /**
     * The name of a segment: the inverse of {@link #segment(String)}.
     *
     * @param segment a segment {@link #segment(String)} wrote
     * @return the name
     * @throws NullPointerException if {@code segment} is {@code null}
     * @throws IllegalArgumentException if no name has this segment (a malformed escape, or one {@code segment} would
     *     not write, such as {@code %41} for {@code A})
     */
    public static String decode(String segment) {
        Objects.requireNonNull(segment, "segment cannot be null");
        if (segment.equals(EMPTY)) {
            return "";
        }
        StringBuilder sb = new StringBuilder(segment.length());
        try {
            for (int i = 0; i < segment.length(); i++) {
                char c = segment.charAt(i);
                if (c != '%') {
                    sb.append(c);
                } else if (i + 1 < segment.length() && segment.charAt(i + 1) == 'u') {
                    sb.append((char) hex(segment, i + 2, 4));
                    i += 5;
                } else {
                    sb.append((char) hex(segment, i + 1, 2));
                    i += 2;
                }
            }
        } catch (IndexOutOfBoundsException | NumberFormatException e) {
            throw notASegment(segment);
        }
        String name = sb.toString();
        // Only the segments segment() writes decode: one name, one segment, and the other way round.
        if (!segment(name).equals(segment)) {
            throw notASegment(segment);
        }
        return name;
    }

    private static int hex(String s, int from, int digits) {
        String h = s.substring(from, from + digits);
        for (int i = 0; i < h.length(); i++) {
            if (Character.digit(h.charAt(i), 16) < 0 || Character.isLowerCase(h.charAt(i))) {
                throw new NumberFormatException(h);
            }
        }
        return Integer.parseInt(h, 16);
    }

    private static IllegalArgumentException notASegment(String segment) {
        return new IllegalArgumentException(
                "\"" + shorten(segment) + "\" is not the segment of any name (PathNames.segment never writes it)");
    }

    private static String shorten(String s) {
        return s.length() > 100 ? s.substring(0, 100) + "..." : s;
    }

    @Override
    public String toString() {
        return "PathNames{under " + prefix + '}';
    }
}
