package io.github.esrel.path;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An absolute, normalised, {@code /}-separated path: {@code /}, {@code /clinton},
 * {@code /clinton/projects/elasticsearch/README.txt}. The one path type of esrel: tree locks are taken
 * on it, and the file-system model indexes it (with {@link #hierarchyTokens()} as {@code path.tree}).
 *
 * <p>A valid path starts with {@code /}; every segment between slashes is non-empty, is neither
 * {@code .} nor {@code ..}, contains no control character (U+0000–U+001F, U+007F–U+009F) and no
 * unpaired surrogate. {@code /} alone is the root, of depth 0; it has no trailing slash in any other case.
 *
 * <p><b>Limits: at most {@value #MAX_BYTES} UTF-8 bytes and {@value #MAX_DEPTH} segments.</b> They are the esrel
 * plugin's, and every path is checked against them here, before any request: so both tree-lock providers (the
 * plugin's and the lock-document fallback) accept and refuse exactly the same paths, and an application does not
 * learn its limits only when the plugin is installed under it. 1,024 bytes is 1,024 ASCII characters, 512
 * characters of most European scripts, 341 of CJK ones.
 *
 * <pre>{@code
 * TreePath p = TreePath.of("/clinton/projects/README.txt");
 * p.depth();            // 3
 * p.name();             // "README.txt"
 * p.ancestors();        // [/, /clinton, /clinton/projects]
 * p.hierarchyTokens();  // [/clinton, /clinton/projects, /clinton/projects/README.txt]
 * p.rebase(TreePath.of("/clinton"), TreePath.of("/zach"));  // /zach/projects/README.txt
 * TreePath.normalize("/a//b/./c/../d/");                    // /a/b/d
 * }</pre>
 *
 * <p>Immutable and thread-safe. Equality is by value. The natural order is by segments (a path sorts
 * right before its descendants, and {@code /a/b} before {@code /a-b}), not by the raw string.
 */
public final class TreePath implements Comparable<TreePath> {

    /**
     * The longest path accepted, in UTF-8 bytes ({@code /} and separators included): the same for the plugin's
     * locks and the fallback's, checked before any request.
     */
    public static final int MAX_BYTES = 1024;

    /** The most segments a path may have ({@code /} has none): the same for the plugin's locks and the fallback's. */
    public static final int MAX_DEPTH = 100;

    /** The root, {@code /}: the ancestor of every other path. */
    public static final TreePath ROOT = new TreePath("/", List.of());

    private static final String SEPARATOR = "/";

    private final String value;
    private final List<String> segments;

    private TreePath(String value, List<String> segments) {
        this.value = value;
        this.segments = segments;
    }

    /**
     * Parses a path that must already be normalised.
     *
     * @param path the path, such as {@code /a/b}
     * @return the path; {@link #ROOT} for {@code /}
     * @throws NullPointerException if {@code path} is null
     * @throws IllegalArgumentException if it is not valid (see the class comment): relative, empty
     *     segments ({@code //} or a trailing {@code /}), {@code .} or {@code ..} segments, control
     *     characters, unpaired surrogates, longer than {@value #MAX_BYTES} UTF-8 bytes or deeper than
     *     {@value #MAX_DEPTH} segments. The message names the value and the rule; {@link #normalize(String)}
     *     accepts the lenient forms.
     */
    public static TreePath of(String path) {
        Objects.requireNonNull(path, "path cannot be null");
        checkAbsoluteAndLength(path);
        if (path.equals(SEPARATOR)) {
            return ROOT;
        }
        if (path.endsWith(SEPARATOR)) {
            throw invalid(path, "must not end with '/' (use TreePath.normalize to drop it)");
        }
        List<String> segments = new ArrayList<>();
        int start = 1;
        while (start <= path.length()) {
            int end = path.indexOf('/', start);
            if (end < 0) {
                end = path.length();
            }
            String segment = path.substring(start, end);
            if (segment.isEmpty()) {
                throw invalid(path, "has an empty segment ('//'); use TreePath.normalize to collapse it");
            }
            if (segment.equals(".") || segment.equals("..")) {
                throw invalid(
                        path,
                        "has a '" + segment + "' segment; paths must be normalised"
                                + " (use TreePath.normalize to resolve it)");
            }
            checkSegmentChars(path, segment);
            segments.add(segment);
            if (segments.size() > MAX_DEPTH) {
                throw invalid(
                        path,
                        "is too deep: more than " + MAX_DEPTH + " segments (TreePath.MAX_DEPTH, the limit of both"
                                + " lock providers); use fewer levels");
            }
            start = end + 1;
        }
        return new TreePath(path, Collections.unmodifiableList(segments));
    }

    /**
     * Parses an absolute path leniently: collapses repeated slashes, drops a trailing slash and
     * {@code .} segments, and resolves {@code ..} against the segment before it.
     * {@code normalize("/a//b/./c/../")} is {@code /a/b}.
     *
     * @param path an absolute path, possibly with repeated or trailing slashes, {@code .} or {@code ..}
     * @return the normalised path
     * @throws NullPointerException if {@code path} is null
     * @throws IllegalArgumentException if it is relative, if a {@code ..} would climb above the root,
     *     or if a segment or the result breaks the other rules of {@link #of(String)} (the limits
     *     {@value #MAX_BYTES} UTF-8 bytes and {@value #MAX_DEPTH} segments apply to the result)
     */
    public static TreePath normalize(String path) {
        Objects.requireNonNull(path, "path cannot be null");
        checkAbsolute(path); // the limits apply to the normalised result (ofSegments)
        List<String> segments = new ArrayList<>();
        for (String segment : path.substring(1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                if (segments.isEmpty()) {
                    throw invalid(path, "climbs above the root with '..'");
                }
                segments.remove(segments.size() - 1);
                continue;
            }
            checkSegmentChars(path, segment);
            segments.add(segment);
        }
        return ofSegments(segments);
    }

    /**
     * The path made of these segments ({@code /} for none).
     *
     * @param segments the segments from the root down
     * @return the path
     * @throws NullPointerException if {@code segments} is or contains {@code null}
     * @throws IllegalArgumentException if a segment is empty, contains {@code /}, is {@code .} or
     *     {@code ..}, or has forbidden characters, or if the path would be longer than {@value #MAX_BYTES}
     *     UTF-8 bytes or deeper than {@value #MAX_DEPTH} segments
     */
    public static TreePath ofSegments(List<String> segments) {
        Objects.requireNonNull(segments, "segments cannot be null");
        if (segments.isEmpty()) {
            return ROOT;
        }
        StringBuilder sb = new StringBuilder();
        for (String s : segments) {
            Objects.requireNonNull(s, "segments cannot contain null");
            checkSingleSegment(s);
            sb.append('/').append(s);
        }
        return of(sb.toString());
    }

    /**
     * {@link #ofSegments(List)} with varargs: {@code TreePath.ofSegments("a", "b")} is {@code /a/b}.
     *
     * @param segments the segments from the root down
     * @return the path
     * @throws NullPointerException if {@code segments} is or contains {@code null}
     * @throws IllegalArgumentException as {@link #ofSegments(List)}
     */
    public static TreePath ofSegments(String... segments) {
        return ofSegments(List.of(segments));
    }

    /**
     * True if {@link #of(String)} would accept {@code path}; false for null.
     *
     * @param path the string to check, may be {@code null}
     * @return whether it is a valid, normalised path
     */
    public static boolean isValid(@Nullable String path) {
        if (path == null) {
            return false;
        }
        try {
            of(path);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * The path as a string, such as {@code /a/b}; the same as {@link #toString()}.
     *
     * @return the normalised path string
     */
    public String value() {
        return value;
    }

    /**
     * The segments from the root down: {@code [a, b]} for {@code /a/b}, empty for the root. Unmodifiable.
     *
     * @return the segments
     */
    public List<String> segments() {
        return segments;
    }

    /**
     * The number of segments: 0 for {@code /}, 1 for {@code /a}, 2 for {@code /a/b}.
     *
     * @return the depth
     */
    public int depth() {
        return segments.size();
    }

    /**
     * True for {@code /}.
     *
     * @return whether this is the root
     */
    public boolean isRoot() {
        return segments.isEmpty();
    }

    /**
     * The last segment ({@code c.txt} for {@code /a/b/c.txt}); the empty string for the root.
     *
     * @return the name
     */
    public String name() {
        return isRoot() ? "" : segments.get(segments.size() - 1);
    }

    /**
     * The parent ({@code /a} for {@code /a/b}, {@code /} for {@code /a}); empty for the root.
     *
     * @return the parent, or empty for the root
     */
    public Optional<TreePath> parent() {
        if (isRoot()) {
            return Optional.empty();
        }
        if (segments.size() == 1) {
            return Optional.of(ROOT);
        }
        return Optional.of(
                new TreePath(value.substring(0, value.lastIndexOf('/')), segments.subList(0, segments.size() - 1)));
    }

    /**
     * The proper ancestors from the root down: {@code [/, /a, /a/b]} for {@code /a/b/c}; empty for the
     * root. Locking a path takes a shared lock on each of these, in this order.
     *
     * @return the ancestors, root first; unmodifiable
     */
    public List<TreePath> ancestors() {
        List<TreePath> lineage = lineage();
        return lineage.subList(0, lineage.size() - 1);
    }

    /**
     * {@link #ancestors()} followed by this path: {@code [/, /a, /a/b]} for {@code /a/b}.
     *
     * @return the paths from the root down to this one, never empty; unmodifiable
     */
    public List<TreePath> lineage() {
        List<TreePath> out = new ArrayList<>(segments.size() + 1);
        out.add(ROOT);
        int end = 0;
        for (int i = 0; i < segments.size(); i++) {
            end += 1 + segments.get(i).length();
            out.add(new TreePath(value.substring(0, end), segments.subList(0, i + 1)));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * The values Elasticsearch's {@code path_hierarchy} tokenizer produces for this path, computed
     * here so that a {@code path.tree} keyword field works on clusters without that tokenizer:
     * {@code [/a, /a/b, /a/b/c]} for {@code /a/b/c}, {@code [/]} for the root. A {@code term} query on
     * {@code path.tree} with a directory's path then finds everything at or below it.
     *
     * @return the tokens, shortest first, never empty; unmodifiable
     */
    public List<String> hierarchyTokens() {
        if (isRoot()) {
            return List.of(SEPARATOR);
        }
        List<String> out = new ArrayList<>(segments.size());
        int end = 0;
        for (String segment : segments) {
            end += 1 + segment.length();
            out.add(value.substring(0, end));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * True if this path is {@code other} or below it, segment by segment: {@code /a/b} starts with
     * {@code /a} and with itself, {@code /a/bc} does not start with {@code /a/b}. Every path starts
     * with the root.
     *
     * @param other the candidate ancestor (or this path itself), not {@code null}
     * @return whether this path is {@code other} or a descendant of it
     * @throws NullPointerException if {@code other} is {@code null}
     */
    public boolean startsWith(TreePath other) {
        Objects.requireNonNull(other, "other cannot be null");
        if (other.isRoot()) {
            return true;
        }
        return value.startsWith(other.value)
                && (value.length() == other.value.length() || value.charAt(other.value.length()) == '/');
    }

    /**
     * True if this path is a proper ancestor of {@code other} ({@code /a} of {@code /a/b}; not of itself).
     *
     * @param other the candidate descendant, not {@code null}
     * @return whether {@code other} lies strictly below this path
     * @throws NullPointerException if {@code other} is {@code null}
     */
    public boolean isAncestorOf(TreePath other) {
        return other.startsWith(this) && !other.equals(this);
    }

    /**
     * True if this path is a proper descendant of {@code other} ({@code /a/b} of {@code /a}; not of itself).
     *
     * @param other the candidate ancestor, not {@code null}
     * @return whether this path lies strictly below {@code other}
     * @throws NullPointerException if {@code other} is {@code null}
     */
    public boolean isDescendantOf(TreePath other) {
        return other.isAncestorOf(this);
    }

    /**
     * True if one path is the other or an ancestor of it: the two lie on one branch. Two tree locks
     * can only conflict on paths that are on one branch.
     *
     * @param other the other path, not {@code null}
     * @return whether either path starts with the other
     * @throws NullPointerException if {@code other} is {@code null}
     */
    public boolean onSameBranch(TreePath other) {
        return startsWith(other) || other.startsWith(this);
    }

    /**
     * The deepest path that both start with ({@code /a} for {@code /a/b} and {@code /a/c}).
     *
     * @param other the other path, not {@code null}
     * @return the common ancestor; one of the two paths if it starts the other, the root at worst
     * @throws NullPointerException if {@code other} is {@code null}
     */
    public TreePath commonAncestor(TreePath other) {
        Objects.requireNonNull(other, "other cannot be null");
        int n = Math.min(depth(), other.depth());
        int i = 0;
        while (i < n && segments.get(i).equals(other.segments.get(i))) {
            i++;
        }
        return i == depth() ? this : i == other.depth() ? other : lineage().get(i);
    }

    /**
     * The child with this name: {@code /a} {@code .child("b")} is {@code /a/b}.
     *
     * @param name the child's segment
     * @return the child path
     * @throws NullPointerException if {@code name} is {@code null}
     * @throws IllegalArgumentException if {@code name} is not a single valid segment (empty, contains
     *     {@code /}, is {@code .} or {@code ..}, has control characters) or the result is too long
     */
    public TreePath child(String name) {
        Objects.requireNonNull(name, "name cannot be null");
        checkSingleSegment(name);
        return of(isRoot() ? SEPARATOR + name : value + SEPARATOR + name);
    }

    /**
     * The path of {@code relative} below this one: {@code /a} {@code .resolve("b/c")} is {@code /a/b/c}.
     * The relative path must be normalised too (no empty, {@code .} or {@code ..} segments); the empty
     * string gives this path.
     *
     * @param relative a normalised path without leading {@code /}, such as {@code b/c}
     * @return the path below this one, or this path for the empty string
     * @throws NullPointerException if {@code relative} is {@code null}
     * @throws IllegalArgumentException if {@code relative} starts with {@code /} or is not normalised
     */
    public TreePath resolve(String relative) {
        Objects.requireNonNull(relative, "relative cannot be null");
        if (relative.isEmpty()) {
            return this;
        }
        if (relative.startsWith(SEPARATOR)) {
            throw new IllegalArgumentException("\"" + relative + "\" is absolute; resolve takes a path relative to "
                    + value + " (or use TreePath.of)");
        }
        return of(isRoot() ? SEPARATOR + relative : value + SEPARATOR + relative);
    }

    /**
     * This path moved from below {@code from} to below {@code to}: the directory rename.
     * {@code /a/b/c.txt} {@code .rebase(/a, /x/y)} is {@code /x/y/b/c.txt}; {@code /a} itself becomes
     * {@code /x/y}.
     *
     * @param from the path this one starts with (the renamed directory)
     * @param to the path that replaces {@code from} (the directory's new path)
     * @return the moved path
     * @throws NullPointerException if {@code from} or {@code to} is {@code null}
     * @throws IllegalArgumentException if this path does not start with {@code from}, or the result is
     *     too long
     */
    public TreePath rebase(TreePath from, TreePath to) {
        Objects.requireNonNull(from, "from cannot be null");
        Objects.requireNonNull(to, "to cannot be null");
        if (!startsWith(from)) {
            throw new IllegalArgumentException(value + " is not at or below " + from + "; cannot move it to " + to);
        }
        List<String> moved = new ArrayList<>(to.segments);
        moved.addAll(segments.subList(from.depth(), depth()));
        return ofSegments(moved);
    }

    /**
     * The segments of this path below {@code ancestor}, joined with {@code /}: {@code b/c} for
     * {@code /a/b/c} relative to {@code /a}; the empty string for the path itself.
     *
     * @param ancestor a path this one starts with, not {@code null}
     * @return the relative path, without leading {@code /}
     * @throws IllegalArgumentException if this path does not start with {@code ancestor}
     */
    public String relativeTo(TreePath ancestor) {
        if (!startsWith(ancestor)) {
            throw new IllegalArgumentException(value + " is not at or below " + ancestor);
        }
        return String.join(SEPARATOR, segments.subList(ancestor.depth(), depth()));
    }

    @Override
    public int compareTo(TreePath other) {
        int n = Math.min(depth(), other.depth());
        for (int i = 0; i < n; i++) {
            int c = segments.get(i).compareTo(other.segments.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(depth(), other.depth());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TreePath other && value.equals(other.value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return value;
    }

    private static void checkAbsoluteAndLength(String path) {
        checkAbsolute(path);
        int bytes = utf8Length(path);
        if (bytes > MAX_BYTES) {
            throw invalid(
                    path,
                    "is too long: " + bytes + " UTF-8 bytes, at most " + MAX_BYTES + " are allowed (TreePath.MAX_BYTES,"
                            + " the limit of both lock providers); use a shorter path");
        }
    }

    private static void checkAbsolute(String path) {
        if (path.isEmpty()) {
            throw new IllegalArgumentException("path must not be empty; the root is \"/\"");
        }
        if (!path.startsWith(SEPARATOR)) {
            throw invalid(path, "must be absolute (start with '/')");
        }
    }

    /**
     * The length of {@code s} in UTF-8, without encoding it. An unpaired surrogate counts 3 bytes (as Java's encoder
     * would write its replacement); such paths are refused anyway.
     */
    static int utf8Length(String s) {
        int bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private static void checkSingleSegment(String name) {
        if (name.isEmpty() || name.contains(SEPARATOR) || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("\"" + escape(name) + "\" is not a single path segment"
                    + " (it must be non-empty, contain no '/' and not be '.' or '..')");
        }
    }

    private static void checkSegmentChars(String path, String segment) {
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (Character.isISOControl(c)) {
                throw invalid(path, String.format("contains the control character U+%04X", (int) c));
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < segment.length() && Character.isLowSurrogate(segment.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw invalid(path, String.format("contains an unpaired surrogate U+%04X", (int) c));
            }
            if (Character.isLowSurrogate(c)) {
                throw invalid(path, String.format("contains an unpaired surrogate U+%04X", (int) c));
            }
        }
    }

    private static IllegalArgumentException invalid(String path, String rule) {
        String shown = path.length() > 200 ? path.substring(0, 200) + "..." : path;
        return new IllegalArgumentException("path \"" + escape(shown) + "\" " + rule);
    }

    private static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isISOControl(c) || Character.isSurrogate(c)) {
                sb.append(String.format("\\u%04X", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
