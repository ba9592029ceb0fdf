package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.search.SourceConfig;
import co.elastic.clients.util.ObjectBuilder;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A field-collapsing search (seed 000 §1.3): the documents matching a query, grouped by one field,
 * the groups ordered by their best score, each with its top documents. Immutable.
 *
 * <pre>{@code
 * GroupQuery<Post> byAuthor = GroupQuery.of(Post.class, g -> g
 *     .index("posts")
 *     .query(q -> q.match(m -> m.field("title").query("relationships")))
 *     .field("user.name.raw")                      // keyword (or numeric) with doc values
 *     .groups(10).perGroup(5));
 * }</pre>
 *
 * @param <T> the document type (a Jackson-mappable class)
 */
public final class GroupQuery<T> {

    private final Class<T> type;
    private final String index;
    private final Query query;
    private final String field;
    private final int from;
    private final int groups;
    private final int perGroup;
    private final List<SortOptions> perGroupSort;
    private final @Nullable SourceConfig source;

    private GroupQuery(Builder<T> b) {
        this.type = b.type;
        // build() refused a query without them.
        this.index = Objects.requireNonNull(b.index);
        this.query = b.query;
        this.field = Objects.requireNonNull(b.field);
        this.from = b.from;
        this.groups = b.groups;
        this.perGroup = b.perGroup;
        this.perGroupSort = b.perGroupSort;
        this.source = b.source;
    }

    /**
     * Builds a query in one expression.
     *
     * @param type the class the group documents' sources are mapped to
     * @param fn sets the query up on a fresh builder and returns it
     * @param <T> the document type
     * @return the query
     * @throws NullPointerException if {@code type} is {@code null}
     * @throws IllegalArgumentException if {@code fn} sets no index or no group field, or sets an
     *     invalid value
     */
    public static <T> GroupQuery<T> of(Class<T> type, Function<Builder<T>, Builder<T>> fn) {
        return fn.apply(new Builder<>(type)).build();
    }

    /**
     * Starts a query; {@link Builder#index} and {@link Builder#field} must be set before
     * {@link Builder#build()}.
     *
     * @param type the class the group documents' sources are mapped to
     * @param <T> the document type
     * @return a new builder with the defaults
     * @throws NullPointerException if {@code type} is {@code null}
     */
    public static <T> Builder<T> builder(Class<T> type) {
        return new Builder<>(type);
    }

    /**
     * Returns the class the group documents' sources are mapped to.
     *
     * @return the document class, never {@code null}
     */
    public Class<T> type() {
        return type;
    }

    /**
     * Returns the index searched.
     *
     * @return the index name, alias or pattern, never {@code null}
     */
    public String index() {
        return index;
    }

    /**
     * Returns the query whose matches are grouped; its scores order the groups.
     *
     * @return the query, {@code match_all} unless one was set
     */
    public Query query() {
        return query;
    }

    /**
     * Returns the field whose values define the groups.
     *
     * @return the group field, never {@code null}
     */
    public String field() {
        return field;
    }

    /**
     * Returns how many groups to skip, for paging through groups.
     *
     * @return the number of leading groups skipped, 0 by default
     */
    public int from() {
        return from;
    }

    /**
     * Returns how many groups to return.
     *
     * @return the most groups returned, at least 1 (10 by default)
     */
    public int groups() {
        return groups;
    }

    /**
     * Returns how many documents to return per group.
     *
     * @return the most documents per group, at least 1 (3 by default)
     */
    public int perGroup() {
        return perGroup;
    }

    /**
     * Returns the order of documents within a group.
     *
     * @return the per-group sort, unmodifiable; empty means by score, best first
     */
    public List<SortOptions> perGroupSort() {
        return perGroupSort;
    }

    /**
     * Returns the source filtering of the group documents.
     *
     * @return the source filter, or {@code null} for the whole source
     */
    public @Nullable SourceConfig source() {
        return source;
    }

    @Override
    public String toString() {
        return "GroupQuery{" + index + " by " + field + " where " + query + ", from=" + from + ", groups=" + groups
                + ", perGroup=" + perGroup + (perGroupSort.isEmpty() ? "" : ", sort " + perGroupSort) + '}';
    }

    /**
     * Builds a {@link GroupQuery}; {@link #index} and {@link #field} are required. Not thread-safe.
     *
     * @param <T> the document type
     */
    public static final class Builder<T> implements ObjectBuilder<GroupQuery<T>> {

        private final Class<T> type;
        private @Nullable String index;
        private Query query = Query.of(q -> q.matchAll(m -> m));
        private @Nullable String field;
        private int from;
        private int groups = 10;
        private int perGroup = 3;
        private List<SortOptions> perGroupSort = List.of();
        private @Nullable SourceConfig source;

        Builder(Class<T> type) {
            this.type = Objects.requireNonNull(type, "type cannot be null");
        }

        /**
         * The index to search (required).
         *
         * @param index an index name, alias or pattern
         * @return this builder
         * @throws IllegalArgumentException if {@code null} or blank
         */
        public Builder<T> index(String index) {
            if (index == null || index.isBlank()) {
                throw new IllegalArgumentException("index cannot be blank");
            }
            this.index = index;
            return this;
        }

        /**
         * The query (default: match all). Groups are ordered by the best score it gives.
         *
         * @param query the query whose matches are grouped
         * @return this builder
         * @throws NullPointerException if {@code query} is {@code null}
         */
        public Builder<T> query(Query query) {
            this.query = Objects.requireNonNull(query, "query cannot be null");
            return this;
        }

        /**
         * The query, built in place; see {@link #query(Query)}.
         *
         * @param fn builds the query on the client's {@link Query.Builder}
         * @return this builder
         */
        public Builder<T> query(Function<Query.Builder, ObjectBuilder<Query>> fn) {
            return query(Query.of(fn));
        }

        /**
         * The group field: a {@code keyword} or numeric field with doc values, one value per document
         * (e.g. {@code user.name.raw}). Documents without a value belong to no group. Required.
         *
         * @param field the group field's name
         * @return this builder
         * @throws IllegalArgumentException if {@code null} or blank
         */
        public Builder<T> field(String field) {
            if (field == null || field.isBlank()) {
                throw new IllegalArgumentException("field cannot be blank");
            }
            this.field = field;
            return this;
        }

        /**
         * Groups to skip (default 0), to page through groups.
         *
         * @param from the number of leading groups to skip
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder<T> from(int from) {
            if (from < 0) {
                throw new IllegalArgumentException("from must not be negative, got " + from);
            }
            this.from = from;
            return this;
        }

        /**
         * Groups to return (default 10).
         *
         * @param groups the most groups to return
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder<T> groups(int groups) {
            if (groups < 1) {
                throw new IllegalArgumentException("groups must be at least 1, got " + groups);
            }
            this.groups = groups;
            return this;
        }

        /**
         * Documents per group (default 3); at most the index's {@code index.max_inner_result_window}
         * (100 by default).
         *
         * @param perGroup the most documents to return per group
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder<T> perGroup(int perGroup) {
            if (perGroup < 1) {
                throw new IllegalArgumentException("perGroup must be at least 1, got " + perGroup);
            }
            this.perGroup = perGroup;
            return this;
        }

        /**
         * Order of documents within a group (default: score, best first). Groups stay ordered by best score.
         *
         * @param sort the sort options, applied in order; none restores the default
         * @return this builder
         * @throws NullPointerException if {@code sort} or one of its elements is {@code null}
         */
        public Builder<T> perGroupSort(SortOptions... sort) {
            this.perGroupSort = List.copyOf(Arrays.asList(sort));
            return this;
        }

        /**
         * Source filtering of the group documents (default: the whole source). Fields filtered out
         * are absent from the mapped values; with the source turned off, each {@link Doc#value()} is
         * {@code null}.
         *
         * @param source the source filter, or {@code null} for the whole source
         * @return this builder
         */
        public Builder<T> source(SourceConfig source) {
            this.source = source;
            return this;
        }

        /** @throws IllegalArgumentException if the index or the field is missing */
        @Override
        public GroupQuery<T> build() {
            if (index == null) {
                throw new IllegalArgumentException("index is missing: call index(name)");
            }
            if (field == null) {
                throw new IllegalArgumentException("the group field is missing: call field(name)");
            }
            return new GroupQuery<>(this);
        }
    }
}
