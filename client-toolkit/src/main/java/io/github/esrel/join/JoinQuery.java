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
 * What to join: the parent side (index, query, the field holding each parent's key), the child side
 * (index, the field holding the parent key in each child, the child query and sort) and how much to
 * return. The same query serves both directions of {@link Join}. Immutable and thread-safe.
 *
 * <pre>{@code
 * JoinQuery<User, Post> q = JoinQuery.of(User.class, Post.class, b -> b
 *     .parents("users", p -> p.term(t -> t.field("gender").value("female")))
 *     .children("posts", "user_id")                 // posts.user_id holds the user's _id
 *     .childQuery(c -> c.term(t -> t.field("popularity").value("high")))
 *     .childSort(SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc))))
 *     .childrenPerPage(20));
 * }</pre>
 *
 * <p>Key fields: the parent key is {@code _id} unless {@link Builder#parentKey(String)} names a
 * field; the child key field must be a {@code keyword} (or numeric) field with doc values holding
 * one parent key per child. Keys are compared as strings ({@code 7} and {@code "7"} are the same key).
 *
 * @param <P> the parent type (a Jackson-mappable class)
 * @param <C> the child type (a Jackson-mappable class)
 */
public final class JoinQuery<P, C> {

    /** The key field that means "the parent's {@code _id}". */
    public static final String ID = "_id";

    /**
     * How {@link Join#childrenWhereParent} reads the parents when it joins keys-first (children-first
     * reads only the parents of the children it checks, with their sources, whatever this says).
     */
    public enum ParentFetch {
        /**
         * Read every matching parent's source together with its key: two round trips in all, but all
         * matching parents travel and are held in memory (at most {@link Join.Builder#maxParents(int)};
         * trim them with {@link Builder#parentSource(SourceConfig)}).
         */
        EAGER,
        /**
         * Read only the parents' keys, then, after the children are known, the parents of the returned
         * children in one more round trip (three in all). Less data when many parents match and few
         * children are returned. With a {@link Builder#parentKey(String) key field} that has doc values
         * (a keyword copy of the id, say) the keys are read without touching any stored field: measured
         * here, 10,000 keys took a quarter of the time 10,000 {@code _id}s take (an {@code _id} is a
         * stored field, read per hit). The fastest way to join many parents keys-first.
         */
        LAZY
    }

    /**
     * How {@link Join#childrenWhereParent} finds the children of matching parents. The answer is the
     * same whichever plan runs; only the cost differs. {@link JoinResult#plan()} says which one ran.
     */
    public enum Plan {
        /**
         * Chosen per call from what the first round trip learns (the default). That round trip reads
         * the first {@value Join#PREVIEW_KEYS} matching parents' keys, counts the matching parents and
         * the parent index (a count cached for a minute), and reads the first children in the child
         * order. When every matching parent's key is in the preview, the join goes on
         * {@link #KEYS_FIRST} with those keys in one more round trip (and may be answered by the children
         * already read). When more parents match, it estimates how many
         * children it must read to find {@code from + childrenPerPage} whose parent matches (the share of
         * parents that match) and goes {@link #CHILDREN_FIRST} when that is fewer than the matching
         * parents, {@link #KEYS_FIRST} otherwise. Costs one round trip more than {@link #KEYS_FIRST}
         * when it picks it for more parents than the preview holds.
         */
        AUTO,
        /**
         * Read the key of every matching parent, then the best children of those keys with one
         * {@code terms} query (batched to {@code index.max_terms_count}, all batches in one round
         * trip): two round trips when the parents fit in one page. Cost grows with the number of
         * matching parents; bounded by {@link Join.Builder#maxParents(int)}.
         */
        KEYS_FIRST,
        /**
         * Read children in the child order and keep those whose parent matches, checking the parents
         * of each page of children with one search ({@code parent query AND key in [...]}): two round
         * trips when the first page of children holds enough matches. Cost grows with the number of
         * children read, not with the number of matching parents, so it is the plan for broad parent
         * conditions (half the users are from one country). Reads at most
         * {@link Join.Builder#maxProbedChildren(int)} children, then falls back to {@link #KEYS_FIRST}
         * (or reports {@link JoinResult.Status#CAP_EXCEEDED} when too many parents match for that).
         */
        CHILDREN_FIRST
    }

    private final Class<P> parentType;
    private final Class<C> childType;
    private final String parentIndex;
    private final Query parentQuery;
    private final String parentKey;
    private final List<SortOptions> parentSort;
    private final @Nullable SourceConfig parentSource;
    private final String childIndex;
    private final String childKey;
    private final Query childQuery;
    private final List<SortOptions> childSort;
    private final @Nullable SourceConfig childSource;
    private final int childrenPerPage;
    private final int parentsPerPage;
    private final int from;
    private final int childrenPerParent;
    private final boolean includeChildless;
    private final ParentFetch parentFetch;
    private final Plan plan;

    private JoinQuery(Builder<P, C> b) {
        this.parentType = b.parentType;
        this.childType = b.childType;
        // build() refused a query without either side; the child key comes with the child index.
        this.parentIndex = Objects.requireNonNull(b.parentIndex);
        this.parentQuery = b.parentQuery;
        this.parentKey = b.parentKey;
        this.parentSort = b.parentSort;
        this.parentSource = b.parentSource;
        this.childIndex = Objects.requireNonNull(b.childIndex);
        this.childKey = Objects.requireNonNull(b.childKey);
        this.childQuery = b.childQuery;
        this.childSort = b.childSort;
        this.childSource = b.childSource;
        this.childrenPerPage = b.childrenPerPage;
        this.parentsPerPage = b.parentsPerPage;
        this.from = b.from;
        this.childrenPerParent = b.childrenPerParent;
        this.includeChildless = b.includeChildless;
        this.parentFetch = b.parentFetch;
        this.plan = b.plan;
    }

    /**
     * Builds a join query with a lambda, in the style of the elasticsearch-java client.
     *
     * @param parentType the class parent sources are mapped to
     * @param childType the class child sources are mapped to
     * @param fn sets the query up on a fresh builder and returns it; it must set both sides
     * @param <P> the parent type
     * @param <C> the child type
     * @return the join query
     * @throws NullPointerException if {@code parentType} or {@code childType} is {@code null}
     * @throws IllegalArgumentException if {@code fn} leaves the parent or the child side unset, or
     *     sets an invalid value
     */
    public static <P, C> JoinQuery<P, C> of(
            Class<P> parentType, Class<C> childType, Function<Builder<P, C>, Builder<P, C>> fn) {
        return fn.apply(new Builder<>(parentType, childType)).build();
    }

    /**
     * Starts a join query; {@link Builder#parents} and {@link Builder#children} must be called before
     * {@link Builder#build()}.
     *
     * @param parentType the class parent sources are mapped to
     * @param childType the class child sources are mapped to
     * @param <P> the parent type
     * @param <C> the child type
     * @return a new builder with the defaults
     * @throws NullPointerException if {@code parentType} or {@code childType} is {@code null}
     */
    public static <P, C> Builder<P, C> builder(Class<P> parentType, Class<C> childType) {
        return new Builder<>(parentType, childType);
    }

    /**
     * Returns a builder holding this query's settings, to derive another query (the next page, say).
     * Changing the builder leaves this query as it is.
     *
     * @return a new builder with every setting of this query
     */
    public Builder<P, C> toBuilder() {
        Builder<P, C> b = new Builder<>(parentType, childType);
        b.parentIndex = parentIndex;
        b.parentQuery = parentQuery;
        b.parentKey = parentKey;
        b.parentSort = parentSort;
        b.parentSource = parentSource;
        b.childIndex = childIndex;
        b.childKey = childKey;
        b.childQuery = childQuery;
        b.childSort = childSort;
        b.childSource = childSource;
        b.childrenPerPage = childrenPerPage;
        b.parentsPerPage = parentsPerPage;
        b.from = from;
        b.childrenPerParent = childrenPerParent;
        b.includeChildless = includeChildless;
        b.parentFetch = parentFetch;
        b.plan = plan;
        return b;
    }

    /**
     * Returns the class parent sources are mapped to.
     *
     * @return the parent class, never {@code null}
     */
    public Class<P> parentType() {
        return parentType;
    }

    /**
     * Returns the class child sources are mapped to.
     *
     * @return the child class, never {@code null}
     */
    public Class<C> childType() {
        return childType;
    }

    /**
     * Returns the parent index.
     *
     * @return the parent index name, alias or pattern, never {@code null}
     */
    public String parentIndex() {
        return parentIndex;
    }

    /**
     * Returns the query that selects parents.
     *
     * @return the parent query, {@code match_all} unless one was set
     */
    public Query parentQuery() {
        return parentQuery;
    }

    /**
     * Returns the parent field whose value children refer to.
     *
     * @return the parent key field, {@value #ID} by default
     */
    public String parentKey() {
        return parentKey;
    }

    /**
     * Tells whether the parent key is the parent's {@code _id} rather than a field of its source.
     *
     * @return {@code true} when {@link #parentKey()} is {@value #ID}
     */
    public boolean parentKeyIsId() {
        return ID.equals(parentKey);
    }

    /**
     * Returns the order of parents in {@link Join#childrenOf}.
     *
     * @return the parent sort, unmodifiable; empty means by score, best first
     */
    public List<SortOptions> parentSort() {
        return parentSort;
    }

    /**
     * Returns the source filtering for parents.
     *
     * @return the parent source filter, or {@code null} for the whole source
     */
    public @Nullable SourceConfig parentSource() {
        return parentSource;
    }

    /**
     * Returns the child index.
     *
     * @return the child index name, alias or pattern, never {@code null}
     */
    public String childIndex() {
        return childIndex;
    }

    /**
     * Returns the child field holding the parent's key.
     *
     * @return the child key field, never {@code null}
     */
    public String childKey() {
        return childKey;
    }

    /**
     * Returns the query children must also match.
     *
     * @return the child query, {@code match_all} unless one was set
     */
    public Query childQuery() {
        return childQuery;
    }

    /**
     * Returns the order of children.
     *
     * @return the child sort, unmodifiable; empty means by score, best first
     */
    public List<SortOptions> childSort() {
        return childSort;
    }

    /**
     * Returns the source filtering for children.
     *
     * @return the child source filter, or {@code null} for the whole source
     */
    public @Nullable SourceConfig childSource() {
        return childSource;
    }

    /**
     * Returns how many children a page of {@link Join#childrenWhereParent} holds.
     *
     * @return the children per page, at least 1, 10 by default
     */
    public int childrenPerPage() {
        return childrenPerPage;
    }

    /**
     * Returns how many parents a page of {@link Join#childrenOf} holds.
     *
     * @return the parents per page, at least 1, 10 by default
     */
    public int parentsPerPage() {
        return parentsPerPage;
    }

    /**
     * Returns how many children the first page of {@link Join#childrenWhereParent} skips.
     *
     * @return the number of leading children skipped, 0 by default
     */
    public int from() {
        return from;
    }

    /**
     * Returns the most children returned per parent by {@link Join#childrenOf}.
     *
     * @return the children per parent, 0 or more (0: counts only), 3 by default
     */
    public int childrenPerParent() {
        return childrenPerParent;
    }

    /**
     * Tells whether {@link Join#childrenOf} returns parents that have no matching child (a left join).
     *
     * @return {@code true} (the default) to return childless parents, {@code false} to skip them
     */
    public boolean includeChildless() {
        return includeChildless;
    }

    /**
     * Returns how {@link Join#childrenWhereParent} reads the parents when it joins keys-first.
     *
     * @return the parent fetch mode, {@link ParentFetch#EAGER} by default
     */
    public ParentFetch parentFetch() {
        return parentFetch;
    }

    /**
     * Returns how {@link Join#childrenWhereParent} runs.
     *
     * @return the plan, {@link Plan#AUTO} by default
     */
    public Plan plan() {
        return plan;
    }

    @Override
    public String toString() {
        return "JoinQuery{parents=" + parentIndex + " key " + parentKey + " where " + parentQuery
                + ", children=" + childIndex + " key " + childKey + " where " + childQuery
                + (childSort.isEmpty() ? "" : " sort " + childSort) + ", childrenPerPage=" + childrenPerPage
                + ", parentsPerPage=" + parentsPerPage + ", from=" + from
                + ", childrenPerParent=" + childrenPerParent + ", includeChildless=" + includeChildless
                + ", parentFetch=" + parentFetch + ", plan=" + plan + '}';
    }

    /**
     * Builds a {@link JoinQuery}; {@link #parents}, {@link #children} are required. Not thread-safe.
     *
     * @param <P> the parent type
     * @param <C> the child type
     */
    public static final class Builder<P, C> implements ObjectBuilder<JoinQuery<P, C>> {

        private final Class<P> parentType;
        private final Class<C> childType;
        private @Nullable String parentIndex;
        private Query parentQuery = Query.of(q -> q.matchAll(m -> m));
        private String parentKey = ID;
        private List<SortOptions> parentSort = List.of();
        private @Nullable SourceConfig parentSource;
        private @Nullable String childIndex;
        private @Nullable String childKey;
        private Query childQuery = Query.of(q -> q.matchAll(m -> m));
        private List<SortOptions> childSort = List.of();
        private @Nullable SourceConfig childSource;
        private int childrenPerPage = 10;
        private int parentsPerPage = 10;
        private int from;
        private int childrenPerParent = 3;
        private boolean includeChildless = true;
        private ParentFetch parentFetch = ParentFetch.EAGER;
        private Plan plan = Plan.AUTO;

        Builder(Class<P> parentType, Class<C> childType) {
            this.parentType = Objects.requireNonNull(parentType, "parentType cannot be null");
            this.childType = Objects.requireNonNull(childType, "childType cannot be null");
        }

        /**
         * The parent side: the index (or alias, or pattern) and the query that selects parents.
         * Required.
         *
         * @param index the parent index, alias or pattern
         * @param query the query that selects parents ({@code match_all} for every parent)
         * @return this builder
         * @throws IllegalArgumentException if the index is {@code null} or blank
         * @throws NullPointerException if {@code query} is {@code null}
         */
        public Builder<P, C> parents(String index, Query query) {
            this.parentIndex = requireIndex(index, "parent");
            this.parentQuery = Objects.requireNonNull(query, "parent query cannot be null");
            return this;
        }

        /**
         * The parent side, with the query built in place; see {@link #parents(String, Query)}.
         *
         * @param index the parent index, alias or pattern
         * @param query builds the parent query on the client's {@link Query.Builder}
         * @return this builder
         * @throws IllegalArgumentException if the index is {@code null} or blank
         */
        public Builder<P, C> parents(String index, Function<Query.Builder, ObjectBuilder<Query>> query) {
            return parents(index, Query.of(query));
        }

        /**
         * The parent field whose value children refer to. Default {@value JoinQuery#ID}. A field must
         * hold one value per parent, unique across parents.
         *
         * @param field the parent key field, or {@value JoinQuery#ID}
         * @return this builder
         * @throws IllegalArgumentException if {@code null} or blank
         */
        public Builder<P, C> parentKey(String field) {
            this.parentKey = requireField(field, "parent key");
            return this;
        }

        /**
         * Order of parents for {@link Join#childrenOf} (default: score, best first).
         *
         * @param sort the sort options, applied in order; none restores the default
         * @return this builder
         * @throws NullPointerException if {@code sort} or one of its elements is {@code null}
         */
        public Builder<P, C> parentSort(SortOptions... sort) {
            this.parentSort = List.copyOf(Arrays.asList(sort));
            return this;
        }

        /**
         * Order of parents for {@link Join#childrenOf}, as a list; see {@link #parentSort(SortOptions...)}.
         *
         * @param sort the sort options, applied in order (copied); empty restores the default
         * @return this builder
         * @throws NullPointerException if {@code sort} or one of its elements is {@code null}
         */
        public Builder<P, C> parentSort(List<SortOptions> sort) {
            this.parentSort = List.copyOf(sort);
            return this;
        }

        /**
         * Source filtering for parents (default: the whole source). With the source turned off, the
         * parents' {@link Doc#value()} is {@code null}.
         *
         * @param source the parent source filter, or {@code null} for the whole source
         * @return this builder
         */
        public Builder<P, C> parentSource(@Nullable SourceConfig source) {
            this.parentSource = source;
            return this;
        }

        /**
         * The child side: the index (or alias, or pattern) and the child field holding the parent key.
         * Required.
         *
         * @param index the child index, alias or pattern
         * @param keyField the child field holding the parent key: a {@code keyword} or numeric field
         *     with doc values, one value per child
         * @return this builder
         * @throws IllegalArgumentException if either is {@code null} or blank
         */
        public Builder<P, C> children(String index, String keyField) {
            this.childIndex = requireIndex(index, "child");
            this.childKey = requireField(keyField, "child key");
            return this;
        }

        /**
         * The query children must also match (default: all children of the matching parents).
         *
         * @param query the child query
         * @return this builder
         * @throws NullPointerException if {@code query} is {@code null}
         */
        public Builder<P, C> childQuery(Query query) {
            this.childQuery = Objects.requireNonNull(query, "child query cannot be null");
            return this;
        }

        /**
         * The child query, built in place; see {@link #childQuery(Query)}.
         *
         * @param query builds the child query on the client's {@link Query.Builder}
         * @return this builder
         */
        public Builder<P, C> childQuery(Function<Query.Builder, ObjectBuilder<Query>> query) {
            return childQuery(Query.of(query));
        }

        /**
         * Order of children (default: score, best first). When a join needs several terms batches,
         * esrel merges their pages itself and supports score and field sorts only. As in
         * Elasticsearch, children sorted on fields alone carry no score ({@link Doc#score()} is
         * {@code null}): not computing it lets the search skip children that cannot make the page.
         *
         * @param sort the sort options, applied in order; none restores the default
         * @return this builder
         * @throws NullPointerException if {@code sort} or one of its elements is {@code null}
         */
        public Builder<P, C> childSort(SortOptions... sort) {
            this.childSort = List.copyOf(Arrays.asList(sort));
            return this;
        }

        /**
         * Order of children, as a list; see {@link #childSort(SortOptions...)}.
         *
         * @param sort the sort options, applied in order (copied); empty restores the default
         * @return this builder
         * @throws NullPointerException if {@code sort} or one of its elements is {@code null}
         */
        public Builder<P, C> childSort(List<SortOptions> sort) {
            this.childSort = List.copyOf(sort);
            return this;
        }

        /**
         * Source filtering for children (default: the whole source). With the source turned off, the
         * children's {@link Doc#value()} is {@code null}.
         *
         * @param source the child source filter, or {@code null} for the whole source
         * @return this builder
         */
        public Builder<P, C> childSource(@Nullable SourceConfig source) {
            this.childSource = source;
            return this;
        }

        /**
         * How many children (paired with their parents) a page of {@link Join#childrenWhereParent} holds.
         * Default 10.
         *
         * @param n the children per page
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder<P, C> childrenPerPage(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("childrenPerPage must be at least 1, got " + n);
            }
            this.childrenPerPage = n;
            return this;
        }

        /**
         * How many parents (each with its children) a page of {@link Join#childrenOf} holds. Default 10.
         *
         * @param n the parents per page
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder<P, C> parentsPerPage(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("parentsPerPage must be at least 1, got " + n);
            }
            this.parentsPerPage = n;
            return this;
        }

        /**
         * Children the first page of {@link Join#childrenWhereParent} skips (default 0), for offset paging
         * near the top. {@code from + childrenPerPage} must stay within the child index's
         * {@code index.max_result_window}; to page deeper, follow {@link JoinResult#next()} instead, which
         * pages with a point in time and {@code search_after} and has no such limit.
         *
         * @param from the number of leading children to skip
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder<P, C> from(int from) {
            if (from < 0) {
                throw new IllegalArgumentException("from must not be negative, got " + from);
            }
            this.from = from;
            return this;
        }

        /**
         * The most children {@link Join#childrenOf} returns with each parent (default 3; 0 returns only
         * the counts). At most the child index's {@code index.max_inner_result_window} (100 by default).
         *
         * @param n the most children per parent
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder<P, C> childrenPerParent(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("childrenPerParent must not be negative, got " + n);
            }
            this.childrenPerParent = n;
            return this;
        }

        /**
         * Whether {@link Join#childrenOf} also returns parents without any matching child (default
         * {@code true}, a left join). With {@code false} it keeps reading parents until it has
         * {@link #parentsPerPage(int)} parents that have children, up to the join's fan-out cap.
         *
         * @param include {@code true} to return childless parents too, {@code false} to skip them
         * @return this builder
         */
        public Builder<P, C> includeChildless(boolean include) {
            this.includeChildless = include;
            return this;
        }

        /**
         * How {@link Join#childrenWhereParent} reads parents when it joins keys-first (default
         * {@link ParentFetch#EAGER}).
         *
         * @param fetch the parent fetch mode
         * @return this builder
         * @throws NullPointerException if {@code fetch} is {@code null}
         */
        public Builder<P, C> parentFetch(ParentFetch fetch) {
            this.parentFetch = Objects.requireNonNull(fetch, "parentFetch cannot be null");
            return this;
        }

        /**
         * How {@link Join#childrenWhereParent} runs (default {@link Plan#AUTO}).
         *
         * @param plan the plan; every plan gives the same answer
         * @return this builder
         * @throws NullPointerException if {@code plan} is {@code null}
         */
        public Builder<P, C> plan(Plan plan) {
            this.plan = Objects.requireNonNull(plan, "plan cannot be null");
            return this;
        }

        /**
         * @throws IllegalArgumentException if the parent or the child side is missing
         */
        @Override
        public JoinQuery<P, C> build() {
            if (parentIndex == null) {
                throw new IllegalArgumentException("the parent side is missing: call parents(index, query)");
            }
            if (childIndex == null) {
                throw new IllegalArgumentException("the child side is missing: call children(index, keyField)");
            }
            return new JoinQuery<>(this);
        }

        private static String requireIndex(String index, String side) {
            if (index == null || index.isBlank()) {
                throw new IllegalArgumentException(side + " index cannot be blank");
            }
            return index;
        }

        private static String requireField(String field, String what) {
            if (field == null || field.isBlank()) {
                throw new IllegalArgumentException(what + " field cannot be blank");
            }
            return field;
        }
    }
}
