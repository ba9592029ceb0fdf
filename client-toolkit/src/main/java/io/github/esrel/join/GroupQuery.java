package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.search.SourceConfig;
import co.elastic.clients.util.ObjectBuilder;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

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
    private final SourceConfig source;

    private GroupQuery(Builder<T> b) {
        this.type = b.type;
        this.index = b.index;
        this.query = b.query;
        this.field = b.field;
        this.from = b.from;
        this.groups = b.groups;
        this.perGroup = b.perGroup;
        this.perGroupSort = b.perGroupSort;
        this.source = b.source;
    }

    public static <T> GroupQuery<T> of(Class<T> type, Function<Builder<T>, Builder<T>> fn) {
        return fn.apply(new Builder<>(type)).build();
    }

    public static <T> Builder<T> builder(Class<T> type) {
        return new Builder<>(type);
    }

    public Class<T> type() {
        return type;
    }

    public String index() {
        return index;
    }

    public Query query() {
        return query;
    }

    /** The field whose values define the groups. */
    public String field() {
        return field;
    }

    /** Groups to skip (paging through groups). */
    public int from() {
        return from;
    }

    /** Groups to return. */
    public int groups() {
        return groups;
    }

    /** Documents to return per group. */
    public int perGroup() {
        return perGroup;
    }

    /** Order of documents within a group; empty means by score, best first. */
    public List<SortOptions> perGroupSort() {
        return perGroupSort;
    }

    /** Source filtering of the group documents, or {@code null} for the whole source. */
    public SourceConfig source() {
        return source;
    }

    @Override
    public String toString() {
        return "GroupQuery{" + index + " by " + field + " where " + query + ", from=" + from + ", groups=" + groups
            + ", perGroup=" + perGroup + (perGroupSort.isEmpty() ? "" : ", sort " + perGroupSort) + '}';
    }

    /** Builds a {@link GroupQuery}; {@link #index} and {@link #field} are required. */
    public static final class Builder<T> implements ObjectBuilder<GroupQuery<T>> {

        private final Class<T> type;
        private String index;
        private Query query = Query.of(q -> q.matchAll(m -> m));
        private String field;
        private int from;
        private int groups = 10;
        private int perGroup = 3;
        private List<SortOptions> perGroupSort = List.of();
        private SourceConfig source;

        Builder(Class<T> type) {
            this.type = Objects.requireNonNull(type, "type cannot be null");
        }

        /** @throws IllegalArgumentException if blank */
        public Builder<T> index(String index) {
            if (index == null || index.isBlank()) {
                throw new IllegalArgumentException("index cannot be blank");
            }
            this.index = index;
            return this;
        }

        /** The query (default: match all). Groups are ordered by the best score it gives. */
        public Builder<T> query(Query query) {
            this.query = Objects.requireNonNull(query, "query cannot be null");
            return this;
        }

        public Builder<T> query(Function<Query.Builder, ObjectBuilder<Query>> fn) {
            return query(Query.of(fn));
        }

        /**
         * The group field: a {@code keyword} or numeric field with doc values, one value per document
         * (e.g. {@code user.name.raw}). Documents without a value belong to no group.
         *
         * @throws IllegalArgumentException if blank
         */
        public Builder<T> field(String field) {
            if (field == null || field.isBlank()) {
                throw new IllegalArgumentException("field cannot be blank");
            }
            this.field = field;
            return this;
        }

        /**
         * Groups to skip (default 0).
         *
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
         * @throws IllegalArgumentException if not positive
         */
        public Builder<T> perGroup(int perGroup) {
            if (perGroup < 1) {
                throw new IllegalArgumentException("perGroup must be at least 1, got " + perGroup);
            }
            this.perGroup = perGroup;
            return this;
        }

        /** Order of documents within a group (default: score, best first). Groups stay ordered by best score. */
        public Builder<T> perGroupSort(SortOptions... sort) {
            this.perGroupSort = List.copyOf(Arrays.asList(sort));
            return this;
        }

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
