package io.github.esrel.join;

import java.util.List;
import java.util.Objects;

/**
 * A parent and the children a join returned for it, in the child sort order.
 *
 * @param parent the parent document
 * @param children its children in this result (for {@link Join#childrenOf} at most
 *     {@link JoinQuery#childrenPerParent()} of them)
 * @param totalChildren how many children of this parent match the child query; {@code -1} when the
 *     join did not count them ({@link Join#childrenWhereParent} only sees the children on the page)
 * @param <P> the parent type
 * @param <C> the child type
 */
public record ParentWithChildren<P, C>(Doc<P> parent, List<Doc<C>> children, long totalChildren) {

    /**
     * Checks the parent and copies {@code children}.
     *
     * @throws NullPointerException if {@code parent} or {@code children} is {@code null}
     */
    public ParentWithChildren {
        Objects.requireNonNull(parent, "parent cannot be null");
        children = List.copyOf(children);
    }
}
