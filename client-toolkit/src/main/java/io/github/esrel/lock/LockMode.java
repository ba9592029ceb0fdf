package io.github.esrel.lock;

import java.util.Locale;

/**
 * How a path is locked. Shared is compatible with shared; exclusive conflicts with everything on the
 * same path. Locking a path in either mode also takes a shared lock on each of its ancestors, so an
 * exclusive lock on a directory conflicts with every lock below it.
 */
public enum LockMode {
    /** Compatible with other shared locks on the same path: readers, or work below a directory. */
    SHARED,
    /** Conflicts with every other lock on the same path, and so with every lock below it. */
    EXCLUSIVE;

    /**
     * True if a lock in this mode and one in {@code other} can be held on the same path at once.
     *
     * @param other the other lock's mode
     * @return true only if both are {@link #SHARED}
     */
    public boolean compatibleWith(LockMode other) {
        return this == SHARED && other == SHARED;
    }

    /**
     * The name in the REST API and in lock documents: {@code shared} or {@code exclusive}.
     *
     * @return the lower-case name
     */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The mode of a JSON name, case-insensitively.
     *
     * @param name {@code shared} or {@code exclusive}, in any case
     * @return the mode of that name
     * @throws IllegalArgumentException if it is neither {@code shared} nor {@code exclusive}
     */
    public static LockMode fromJsonName(String name) {
        if (name != null) {
            for (LockMode m : values()) {
                if (m.jsonName().equalsIgnoreCase(name)) {
                    return m;
                }
            }
        }
        throw new IllegalArgumentException("lock mode must be \"shared\" or \"exclusive\", got " + name);
    }
}
