package io.github.esrel.routing;

import java.util.Objects;

/**
 * A document's {@code _id} and optional routing value: all that decides its shard.
 *
 * @param id the document id, not empty
 * @param routing the routing value, or {@code null} to route by id
 */
public record DocRef(String id, String routing) {

    /**
     * Checks the id.
     *
     * @param id the document id, not empty
     * @param routing the routing value, or {@code null} to route by id
     * @throws NullPointerException if {@code id} is {@code null}
     * @throws IllegalArgumentException if {@code id} is empty
     */
    public DocRef {
        Objects.requireNonNull(id, "id cannot be null");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id must not be empty");
        }
    }

    /**
     * A document routed by its id.
     *
     * @param id the document id, not empty
     * @return a reference without routing value
     * @throws NullPointerException if {@code id} is {@code null}
     * @throws IllegalArgumentException if {@code id} is empty
     */
    public static DocRef of(String id) {
        return new DocRef(id, null);
    }

    /**
     * A document with an id and a routing value.
     *
     * @param id the document id, not empty
     * @param routing the routing value, or {@code null} to route by id
     * @return the reference
     * @throws NullPointerException if {@code id} is {@code null}
     * @throws IllegalArgumentException if {@code id} is empty
     */
    public static DocRef of(String id, String routing) {
        return new DocRef(id, routing);
    }
}
