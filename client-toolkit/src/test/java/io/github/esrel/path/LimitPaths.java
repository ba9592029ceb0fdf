package io.github.esrel.path;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Paths at and just past the limits of {@link TreePath} ({@value TreePath#MAX_BYTES} UTF-8 bytes,
 * {@value TreePath#MAX_DEPTH} segments), by what they test: the one table that the unit test of {@link TreePath} and
 * the contract suite of both lock providers check, so that the providers are held to exactly the boundaries the client
 * checks. The refused ones include the four paths on which the providers once disagreed.
 */
public final class LimitPaths {

    private LimitPaths() {}

    /** Paths exactly at a limit: every provider must lock them. */
    public static Map<String, String> accepted() {
        Map<String, String> paths = new LinkedHashMap<>();
        paths.put("1,024 ASCII bytes in one segment", "/" + "a".repeat(TreePath.MAX_BYTES - 1));
        paths.put("1,024 bytes in 10 segments", segments(10, TreePath.MAX_BYTES, 'b'));
        // Both limits at once; a 100-segment path costs the fallback 101 documents a step, so it is the only one.
        paths.put("100 segments in 1,024 bytes", segments(TreePath.MAX_DEPTH, TreePath.MAX_BYTES, 'd'));
        paths.put("1,024 bytes of two-byte characters", "/" + "é".repeat(511) + "e");
        paths.put("1,024 bytes of three-byte characters", "/" + "€".repeat(341));
        paths.put("1,024 bytes of four-byte characters", "/" + "\ud83d\ude00".repeat(255) + "abc");
        paths.forEach(LimitPaths::checkAccepted);
        return paths;
    }

    /** Paths one past a limit, and the four on which the providers once disagreed: refused before any request. */
    public static Map<String, String> refused() {
        Map<String, String> paths = new LinkedHashMap<>();
        paths.put("1,025 ASCII bytes in one segment", "/" + "a".repeat(TreePath.MAX_BYTES));
        paths.put("1,025 bytes in 10 segments", segments(10, TreePath.MAX_BYTES + 1, 'b'));
        paths.put("101 segments", "/s".repeat(TreePath.MAX_DEPTH + 1));
        paths.put("1,025 bytes of two-byte characters", "/" + "é".repeat(512));
        paths.put("1,025 bytes of three-byte characters", "/" + "€".repeat(341) + "e");
        paths.put("1,027 bytes of four-byte characters", "/" + "\ud83d\ude00".repeat(256) + "ab");
        paths.put("1,500 ASCII characters in one segment", "/" + "x".repeat(1499));
        paths.put("1,500 characters in 10 segments", segments(10, 1500, 'y'));
        paths.put("150 segments", "/z".repeat(150));
        paths.put("400 three-byte characters (1,201 UTF-8 bytes)", "/" + "語".repeat(400));
        return paths;
    }

    /** {@code count} segments of letters {@code c}, {@code bytes} UTF-8 bytes in all (the last segment takes the rest). */
    private static String segments(int count, int bytes, char c) {
        StringBuilder sb = new StringBuilder();
        int each = bytes / count - 1;
        for (int i = 0; i < count - 1; i++) {
            sb.append('/').append(String.valueOf(c).repeat(each));
        }
        int rest = bytes - sb.length() - 1;
        sb.append('/').append(String.valueOf(c).repeat(rest));
        return sb.toString();
    }

    private static void checkAccepted(String what, String path) {
        int bytes = path.getBytes(StandardCharsets.UTF_8).length;
        int depth = (int) path.chars().filter(ch -> ch == '/').count();
        if (bytes != TreePath.MAX_BYTES && depth != TreePath.MAX_DEPTH
                || bytes > TreePath.MAX_BYTES
                || depth > TreePath.MAX_DEPTH) {
            throw new IllegalStateException(what + ": not at a limit, " + bytes + " bytes, depth " + depth);
        }
    }
}
