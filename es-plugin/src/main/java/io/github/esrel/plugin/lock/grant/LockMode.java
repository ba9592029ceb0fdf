package io.github.esrel.plugin.lock.grant;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * How a path is locked. Shared is compatible with shared; exclusive conflicts with every other lock on
 * the same path. Every grant also takes a shared lock on each proper ancestor of its path.
 */
public enum LockMode {
    /** Conflicts with every other lock on the path, including the shared locks grants below it take. */
    EXCLUSIVE,
    /** Compatible with other shared locks on the path; the mode every grant takes on its ancestors. */
    SHARED;

    /**
     * The name used in requests, responses and the stored table: {@code exclusive} or {@code shared}.
     *
     * @return the lowercase name of this mode
     */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code exclusive} or {@code shared} (exactly, lowercase).
     *
     * @param value the mode as given in a request or the stored table; may be {@code null}
     * @return the mode named by {@code value}
     * @throws IllegalArgumentException naming the accepted values
     */
    public static LockMode parse(@Nullable String value) {
        if ("exclusive".equals(value)) {
            return EXCLUSIVE;
        }
        if ("shared".equals(value)) {
            return SHARED;
        }
        throw new IllegalArgumentException(
                "mode must be [exclusive] or [shared], got [" + TreePath.shorten(String.valueOf(value)) + "]");
    }
}
