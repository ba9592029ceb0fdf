package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.grant.Grant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What an acquire ended with, both outcomes being expected ones: the new grant, or the live grants that still
 * stood in the way when its wait was over.
 *
 * @param grant     the new grant, or null if the lock was not acquired
 * @param conflicts the grants in the way, in table order; empty when acquired
 */
public record Acquisition(@Nullable Grant grant, List<Grant> conflicts) {

    /**
     * Copies the conflicts.
     *
     * @throws NullPointerException if {@code conflicts} is or contains null
     * @throws IllegalArgumentException if there is a grant and conflicts too
     */
    public Acquisition {
        conflicts = List.copyOf(conflicts);
        if (grant != null && conflicts.isEmpty() == false) {
            throw new IllegalArgumentException("an acquisition has a grant or conflicts, not both");
        }
    }

    /**
     * The lock was granted.
     *
     * @param grant the new grant
     * @return an acquisition with {@code grant} and no conflicts
     */
    public static Acquisition granted(@Nullable Grant grant) {
        return new Acquisition(Objects.requireNonNull(grant, "grant cannot be null"), List.of());
    }

    /**
     * The lock was not granted.
     *
     * @param conflicts the live grants in the way
     * @return an acquisition without a grant
     */
    public static Acquisition refused(List<Grant> conflicts) {
        return new Acquisition(null, conflicts);
    }

    /**
     * Whether the lock was granted.
     *
     * @return {@code true} if {@link #grant()} is set
     */
    public boolean acquired() {
        return grant != null;
    }
}
