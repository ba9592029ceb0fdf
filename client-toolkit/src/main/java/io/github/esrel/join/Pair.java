package io.github.esrel.join;

import java.util.Objects;

/**
 * A child and the parent it refers to, as a join returns them.
 *
 * @param parent the parent document (its {@link Doc#value()} is {@code null} only when the join was
 *     told not to fetch parent sources)
 * @param child the child document
 * @param <P> the parent type
 * @param <C> the child type
 */
public record Pair<P, C>(Doc<P> parent, Doc<C> child) {

    /**
     * Checks that both documents are given.
     *
     * @throws NullPointerException if {@code parent} or {@code child} is {@code null}
     */
    public Pair {
        Objects.requireNonNull(parent, "parent cannot be null");
        Objects.requireNonNull(child, "child cannot be null");
    }
}
