package io.github.esrel.plugin.lock.grant;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Lock paths: absolute, {@code /}-separated and normalised. {@code /} is the root; every other path is
 * {@code /} followed by one or more non-empty segments separated by single slashes. Segments {@code .}
 * and {@code ..}, empty segments (a trailing slash, {@code //}), control characters and unpaired
 * surrogates are refused rather than repaired, so that a path names one lock and only one. Paths are
 * compared as strings: Unicode normalisation (NFC vs NFD) is the caller's business.
 *
 * <p>The limits ({@value #MAX_BYTES} UTF-8 bytes, {@value #MAX_DEPTH} segments) are part of the tree-lock contract:
 * the Java client's {@code TreePath} holds the same ones and checks them before any request, for the plugin's locks
 * and for its lock-document fallback alike. Change them together, or the two providers accept different paths.
 */
public final class TreePath {

    /** The longest path, in UTF-8 bytes. */
    public static final int MAX_BYTES = 1024;
    /** The most segments a path may have ({@code /} has none). */
    public static final int MAX_DEPTH = 100;
    /** The root: an exclusive lock on it excludes every other lock of the index. */
    public static final String ROOT = "/";

    private TreePath() {}

    /**
     * What is wrong with {@code path} as a lock path, or null if nothing is.
     *
     * @param field the name used in the message ({@code path})
     * @param path the path to check; {@code null} means it was missing
     * @return a message for a 400 that names the problem, or {@code null} if {@code path} is valid
     */
    public static @Nullable String problem(String field, @Nullable String path) {
        if (path == null) {
            return field + " is required, e.g. \"/a/b/c.txt\"";
        }
        if (path.isEmpty()) {
            return field + " must not be empty; use \"/\" for the root";
        }
        int bytes = path.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            return field + " [" + shorten(path) + "] is too long: " + bytes + " UTF-8 bytes, at most " + MAX_BYTES
                    + " are allowed; use a shorter path";
        }
        if (path.charAt(0) != '/') {
            return field + " [" + shorten(path) + "] must be absolute (start with \"/\")";
        }
        String charProblem = characterProblem(path);
        if (charProblem != null) {
            return field + " [" + shorten(path) + "] " + charProblem;
        }
        if (path.length() == 1) {
            return null;
        }
        if (path.endsWith("/")) {
            String trimmed = path.replaceAll("/+$", "");
            return field + " [" + shorten(path) + "] must not end with \"/\"; write ["
                    + (trimmed.isEmpty() ? ROOT : shorten(trimmed)) + "]";
        }
        int depth = 0;
        int start = 1;
        while (start <= path.length()) {
            int end = path.indexOf('/', start);
            if (end < 0) {
                end = path.length();
            }
            String segment = path.substring(start, end);
            if (segment.isEmpty()) {
                return field + " [" + shorten(path) + "] has an empty segment (\"//\"); paths must be normalised";
            }
            if (segment.equals(".") || segment.equals("..")) {
                return field + " [" + shorten(path) + "] has a [" + segment + "] segment; paths must be normalised";
            }
            if (++depth > MAX_DEPTH) {
                return field + " [" + shorten(path) + "] is too deep: more than " + MAX_DEPTH
                        + " segments; use fewer levels";
            }
            start = end + 1;
        }
        return null;
    }

    /**
     * Whether {@code ancestor} is a proper ancestor of {@code path} (both valid).
     *
     * @param ancestor the candidate ancestor
     * @param path the path below it
     * @return {@code true} if {@code path} lies strictly below {@code ancestor}; {@code false} for equal paths
     */
    public static boolean isProperAncestor(String ancestor, String path) {
        if (ancestor.length() >= path.length()) {
            return false;
        }
        if (ancestor.equals(ROOT)) {
            return true;
        }
        return path.startsWith(ancestor) && path.charAt(ancestor.length()) == '/';
    }

    /**
     * The parent of a valid path: {@code /a} for {@code /a/b}, {@code /} for {@code /a}, null for {@code /}.
     *
     * @param path a valid path
     * @return its parent, or null for the root
     */
    public static @Nullable String parent(String path) {
        if (path.equals(ROOT)) {
            return null;
        }
        int slash = path.lastIndexOf('/');
        return slash == 0 ? ROOT : path.substring(0, slash);
    }

    /**
     * Whether {@code path} is {@code prefix} or below it (both valid).
     *
     * @param path the path to test
     * @param prefix the subtree's top path
     * @return {@code true} if {@code path} equals {@code prefix} or lies below it
     */
    public static boolean isAtOrBelow(String path, String prefix) {
        return path.equals(prefix) || isProperAncestor(prefix, path);
    }

    /**
     * A control character (U+0000–U+001F, U+007F–U+009F) or an unpaired surrogate, described, or null. Such
     * strings cannot be stored and shown back faithfully, so they are refused in paths and owners alike.
     */
    @Nullable
    static String characterProblem(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
                return String.format(
                        java.util.Locale.ROOT, "contains the control character U+%04X at offset %d", (int) c, i);
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return "contains an unpaired surrogate at offset " + i;
            }
            if (Character.isLowSurrogate(c)) {
                return "contains an unpaired surrogate at offset " + i;
            }
        }
        return null;
    }

    /**
     * At most 60 characters of {@code s}, for messages, with control characters and unpaired surrogates
     * replaced by U+FFFD: an error message must always be valid JSON text.
     *
     * @param s a path, an owner or any string a client sent
     * @return {@code s} as an error message may show it
     */
    public static String shorten(String s) {
        String head = s;
        if (s.length() > 60) {
            int end = Character.isHighSurrogate(s.charAt(59)) ? 59 : 60;
            head = s.substring(0, end) + "...";
        }
        StringBuilder out = new StringBuilder(head.length());
        for (int i = 0; i < head.length(); i++) {
            char c = head.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < head.length() && Character.isLowSurrogate(head.charAt(i + 1))) {
                out.append(c).append(head.charAt(++i));
            } else if (Character.isSurrogate(c) || c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
                out.append('\ufffd');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
