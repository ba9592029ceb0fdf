package io.github.esrel.doc;

import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The address of one document: its id, the index it is in, and the routing value it was written with (a
 * document written with a routing value lives on the shard of that value, and is found only with it).
 * Every esrel call that addresses one document takes this value, so that an id, an index and a routing value
 * cannot be passed in the wrong order; calls for a document routed by its id also take the plain index and id.
 *
 * <pre>{@code
 * DocRef.of("designs", "1")                                  // routed by its id
 * DocRef.of("orders", "order-1").withRouting("tenant-7")     // written with ?routing=tenant-7
 * DocRef.of(d -> d.index("orders").id("order-1").routing("tenant-7"))
 * DocRef.id("order-1").withRouting("tenant-7")               // where the API already knows the index
 * }</pre>
 *
 * <p>An empty routing value counts as none, as it does when Elasticsearch indexes a document. Immutable;
 * equal when index, id and routing are.
 */
public final class DocRef {

    private final @Nullable String index;
    private final String id;
    private final @Nullable String routing;

    private DocRef(@Nullable String index, @Nullable String id, @Nullable String routing) {
        Objects.requireNonNull(id, "id cannot be null");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id must not be empty");
        }
        if (index != null && index.isBlank()) {
            throw new IllegalArgumentException("index must not be blank, got [" + index + "]");
        }
        this.index = index;
        this.id = id;
        this.routing = routing == null || routing.isEmpty() ? null : routing;
    }

    /**
     * A document of {@code index}, routed by its id (add a routing value with {@link #withRouting}).
     *
     * @param index the index (or alias) the document is in
     * @param id the document id
     * @return the reference
     * @throws NullPointerException if {@code index} or {@code id} is {@code null}
     * @throws IllegalArgumentException if {@code index} is blank or {@code id} is empty
     */
    public static DocRef of(String index, String id) {
        return new DocRef(Objects.requireNonNull(index, "index cannot be null"), id, null);
    }

    /**
     * A document in an index the API it is passed to already knows (the source index of a view, the index of a
     * routing calculator), routed by its id unless {@link #withRouting} adds a value.
     *
     * @param id the document id
     * @return the reference, without index
     * @throws NullPointerException if {@code id} is {@code null}
     * @throws IllegalArgumentException if {@code id} is empty
     */
    public static DocRef id(String id) {
        return new DocRef(null, id, null);
    }

    /**
     * Builds a reference the way elasticsearch-java builds requests.
     *
     * @param fn sets the builder's values; {@code id} is required
     * @return the reference
     * @throws NullPointerException if no id was set
     * @throws IllegalArgumentException if the index is blank or the id empty
     */
    public static DocRef of(Function<Builder, Builder> fn) {
        Builder b = fn.apply(new Builder());
        return new DocRef(b.index, b.id, b.routing);
    }

    /**
     * This document with a routing value.
     *
     * @param routing the routing value it was (or is to be) written with; {@code null} or empty for none
     * @return a reference with the same index and id
     */
    public DocRef withRouting(@Nullable String routing) {
        return new DocRef(index, id, routing);
    }

    /**
     * The index, when the reference names one.
     *
     * @return the index or alias, or {@code null} for a reference made with {@link #id(String)}
     */
    public @Nullable String index() {
        return index;
    }

    /**
     * The document id.
     *
     * @return the id, never empty
     */
    public String id() {
        return id;
    }

    /**
     * The routing value.
     *
     * @return the routing value, or {@code null} when the document is routed by its id
     */
    public @Nullable String routing() {
        return routing;
    }

    /**
     * The index an API that needs one uses.
     *
     * @return {@link #index()}
     * @throws IllegalArgumentException if the reference names no index
     */
    public String requireIndex() {
        if (index == null) {
            throw new IllegalArgumentException(
                    "the document reference " + this + " names no index;" + " use DocRef.of(index, id)");
        }
        return index;
    }

    /**
     * Checks that this reference is in {@code expected}: it names that index, or none.
     *
     * @param expected the index the API works on
     * @return this reference
     * @throws IllegalArgumentException if the reference names another index
     */
    public DocRef requireIn(String expected) {
        if (index != null && !index.equals(expected)) {
            throw new IllegalArgumentException("the document reference " + this + " names index [" + index
                    + "], but this works on [" + expected + "]");
        }
        return this;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DocRef that
                && Objects.equals(index, that.index)
                && id.equals(that.id)
                && Objects.equals(routing, that.routing);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, id, routing);
    }

    /**
     * Describes the document as {@code index/id?routing=value}.
     *
     * @return the description
     */
    @Override
    public String toString() {
        return (index == null ? "" : index + "/") + id + (routing == null ? "" : "?routing=" + routing);
    }

    /** Builds a {@link DocRef}. */
    public static final class Builder {

        private @Nullable String index;
        private @Nullable String id;
        private @Nullable String routing;

        private Builder() {}

        /**
         * The index (or alias) the document is in.
         *
         * @param index the index; {@code null} where the API knows it
         * @return this builder
         */
        public Builder index(String index) {
            this.index = index;
            return this;
        }

        /**
         * The document id. Required.
         *
         * @param id the id
         * @return this builder
         */
        public Builder id(String id) {
            this.id = id;
            return this;
        }

        /**
         * The routing value the document was written with.
         *
         * @param routing the routing value; {@code null} or empty for none
         * @return this builder
         */
        public Builder routing(String routing) {
            this.routing = routing;
            return this;
        }
    }
}
