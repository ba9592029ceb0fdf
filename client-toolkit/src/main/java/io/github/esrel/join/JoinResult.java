package io.github.esrel.join;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a join returned and what it cost: the pairs, the same grouped by parent, how many parents
 * it read and how many keys it shipped in how many {@code terms} batches, and every round trip it
 * made to the cluster.
 *
 * <p>Hitting the fan-out cap is an expected outcome, reported in {@link #status()} with
 * {@link #advice()} saying what to denormalize; {@link #orThrow()} turns it into a
 * {@link JoinCapExceededException}. Immutable.
 *
 * @param <P> the parent type
 * @param <C> the child type
 */
public final class JoinResult<P, C> {

    /** Whether the answer is complete. */
    public enum Status {
        /** The answer is exact: every parent that could contribute was read. */
        COMPLETE,
        /**
         * {@link Join#childrenOf} only: the join read {@link Join.Builder#maxParents(int)} parents without
         * filling the page. The pairs are correct but fewer than asked; {@link #next()} continues.
         */
        PARTIAL,
        /**
         * {@link Join#childrenWhereParent} only: more parents match than the cap allows, so the join
         * stopped after counting them and returned nothing (a top-N of children needs every parent).
         */
        CAP_EXCEEDED
    }

    private final Status status;
    private final List<Pair<P, C>> pairs;
    private final List<ParentWithChildren<P, C>> parents;
    private final long parentsMatched;
    private final boolean parentsMatchedExact;
    private final int parentsRead;
    private final long childrenMatched;
    private final boolean childrenMatchedExact;
    private final int keysShipped;
    private final int termsBatches;
    private final int maxTermsCount;
    private final int maxParents;
    private final List<String> requests;
    private final Duration took;
    private final @Nullable JoinCursor next;
    private final @Nullable String advice;
    private final JoinQuery.Plan plan;
    private final int childrenRead;

    private JoinResult(Builder<P, C> b) {
        this.status = Objects.requireNonNull(b.status);
        this.pairs = List.copyOf(b.pairs);
        this.parents = b.parents != null ? List.copyOf(b.parents) : group(this.pairs);
        this.parentsMatched = b.parentsMatched;
        this.parentsMatchedExact = b.parentsMatchedExact;
        this.parentsRead = b.parentsRead;
        this.childrenMatched = b.childrenMatched;
        this.childrenMatchedExact = b.childrenMatchedExact;
        this.keysShipped = b.keysShipped;
        this.termsBatches = b.termsBatches;
        this.maxTermsCount = b.maxTermsCount;
        this.maxParents = b.maxParents;
        this.requests = List.copyOf(b.requests);
        this.took = Objects.requireNonNull(b.took);
        this.next = b.next;
        this.advice = b.advice;
        this.plan = Objects.requireNonNull(b.plan);
        this.childrenRead = b.childrenRead;
    }

    /** Starts a result; the joins fill in what their plan learned, then the cost of the call. */
    static <P, C> Builder<P, C> builder(Status status, JoinQuery.Plan plan) {
        return new Builder<>(status, plan);
    }

    /**
     * Assembles a {@link JoinResult} in parts: the answer, the parent side, the child side, the keys
     * shipped, the cost. What is not set is zero, empty or absent, except the children matched, which are
     * unknown ({@code -1}) until set.
     */
    static final class Builder<P, C> {
        private final Status status;
        private final JoinQuery.Plan plan;
        private List<Pair<P, C>> pairs = List.of();
        private @Nullable List<ParentWithChildren<P, C>> parents;
        private long parentsMatched;
        private boolean parentsMatchedExact;
        private int parentsRead;
        private long childrenMatched = -1;
        private boolean childrenMatchedExact;
        private int childrenRead;
        private int keysShipped;
        private int termsBatches;
        private int maxTermsCount;
        private int maxParents;
        private List<String> requests = List.of();
        private Duration took = Duration.ZERO;
        private @Nullable JoinCursor next;
        private @Nullable String advice;

        private Builder(Status status, JoinQuery.Plan plan) {
            this.status = status;
            this.plan = plan;
        }

        /** The pairs, grouped by parent for {@link JoinResult#parents()} unless {@link #parents(List)} is given. */
        Builder<P, C> pairs(List<Pair<P, C>> pairs) {
            this.pairs = pairs;
            return this;
        }

        /** The pairs grouped by parent, when the join has them grouped already (with child counts). */
        Builder<P, C> parents(List<ParentWithChildren<P, C>> parents) {
            this.parents = parents;
            return this;
        }

        /** How many parents match the parent query, how exactly, and how many this call read. */
        Builder<P, C> parentSide(long matched, boolean exact, int read) {
            this.parentsMatched = matched;
            this.parentsMatchedExact = exact;
            this.parentsRead = read;
            return this;
        }

        /** How many children match (child query and parent keys), and how exactly. */
        Builder<P, C> childrenMatched(long matched, boolean exact) {
            this.childrenMatched = matched;
            this.childrenMatchedExact = exact;
            return this;
        }

        /** Children read in the child order (children-first). */
        Builder<P, C> childrenRead(int read) {
            this.childrenRead = read;
            return this;
        }

        /** Keys shipped to the child side, and in how many {@code terms} batches. */
        Builder<P, C> keysShipped(int keys, int batches) {
            this.keysShipped = keys;
            this.termsBatches = batches;
            return this;
        }

        /** The {@code index.max_terms_count} of the child index, as esrel knew it. */
        Builder<P, C> maxTermsCount(int maxTermsCount) {
            this.maxTermsCount = maxTermsCount;
            return this;
        }

        /** The fan-out cap the join ran with. */
        Builder<P, C> maxParents(int maxParents) {
            this.maxParents = maxParents;
            return this;
        }

        /** Where the next page starts; {@code null} on the last page. */
        Builder<P, C> next(@Nullable JoinCursor next) {
            this.next = next;
            return this;
        }

        /** Whether the page built has a next one. */
        boolean hasNext() {
            return next != null;
        }

        /** Why the join stopped at its cap; {@code null} when complete. */
        Builder<P, C> advice(@Nullable String advice) {
            this.advice = advice;
            return this;
        }

        /**
         * The round trips made so far and the time since {@code startNanos} ({@link System#nanoTime()}):
         * set last, since requests made after it are not reported.
         */
        Builder<P, C> cost(Trips trips, long startNanos) {
            this.requests = trips.list();
            this.took = Duration.ofNanos(System.nanoTime() - startNanos);
            return this;
        }

        JoinResult<P, C> build() {
            return new JoinResult<>(this);
        }
    }

    private static <P, C> List<ParentWithChildren<P, C>> group(List<Pair<P, C>> pairs) {
        Map<String, Doc<P>> parentsByRef = new LinkedHashMap<>();
        Map<String, List<Doc<C>>> children = new LinkedHashMap<>();
        for (Pair<P, C> p : pairs) {
            String ref = p.parent().ref();
            parentsByRef.putIfAbsent(ref, p.parent());
            children.computeIfAbsent(ref, r -> new ArrayList<>()).add(p.child());
        }
        List<ParentWithChildren<P, C>> out = new ArrayList<>();
        // Every parent came with a child.
        parentsByRef.forEach((ref, parent) ->
                out.add(new ParentWithChildren<>(parent, Objects.requireNonNull(children.get(ref)), -1)));
        return out;
    }

    /**
     * Returns whether the answer is complete.
     *
     * @return {@link Status#COMPLETE}, or {@link Status#PARTIAL} or {@link Status#CAP_EXCEEDED} when
     *     the join stopped at its fan-out cap
     */
    public Status status() {
        return status;
    }

    /**
     * Tells whether the join gave its whole answer.
     *
     * @return {@code true} for {@link Status#COMPLETE}, {@code false} when the join stopped at its cap
     */
    public boolean complete() {
        return status == Status.COMPLETE;
    }

    /**
     * The joined children with their parents: for {@link Join#childrenWhereParent} in the child sort
     * order; for {@link Join#childrenOf} parent by parent, each parent's children in the child sort
     * order. Empty for {@link Status#CAP_EXCEEDED}.
     *
     * @return the pairs, unmodifiable; empty when no child matched
     */
    public List<Pair<P, C>> pairs() {
        return pairs;
    }

    /**
     * The children (of {@link #pairs()}) grouped under their parents, in the order of {@link #pairs()}.
     *
     * @return one entry per parent, unmodifiable; for {@link Join#childrenOf} also the childless
     *     parents when {@link JoinQuery#includeChildless()}, with their child counts; for
     *     {@link Join#childrenWhereParent} each {@link ParentWithChildren#totalChildren()} is {@code -1}
     */
    public List<ParentWithChildren<P, C>> parents() {
        return parents;
    }

    /**
     * Just the children of {@link #pairs()}, in order.
     *
     * @return a new list of each child's {@link Doc#value()}; an element is {@code null} when child
     *     sources were not fetched
     */
    public @Nullable List<C> children() {
        List<C> out = new ArrayList<>(pairs.size());
        pairs.forEach(p -> out.add(p.child().value()));
        return out;
    }

    /**
     * How many parents match the parent query: exact when {@link #parentsMatchedExact()}, otherwise a
     * lower bound (Elasticsearch stops counting at 10,000, or just past the cap), or, when the same condition
     * matched more parents than the preview holds in a call of the last minute, that call's count: the
     * children-first plan then does not count again (the count only weighs the plan; the answer is exact
     * whatever it is).
     *
     * @return the number of matching parents, or {@code -1} when Elasticsearch did not count them
     */
    public long parentsMatched() {
        return parentsMatched;
    }

    /**
     * Tells whether {@link #parentsMatched()} is an exact count.
     *
     * @return {@code true} when exact, {@code false} when it is a lower bound or unknown
     */
    public boolean parentsMatchedExact() {
        return parentsMatchedExact;
    }

    /**
     * Parents read from the parent side by this call (the fan-out).
     *
     * @return the number of parents whose key (and source, if fetched) this call read
     */
    public int parentsRead() {
        return parentsRead;
    }

    /**
     * How many children match (child query and parent keys): exact when
     * {@link #childrenMatchedExact()}, otherwise a lower bound; -1 when the join did not ask.
     *
     * @return the number of matching children, or {@code -1}
     */
    public long childrenMatched() {
        return childrenMatched;
    }

    /**
     * Tells whether {@link #childrenMatched()} is an exact count.
     *
     * @return {@code true} when exact, {@code false} when it is a lower bound or was not asked for
     */
    public boolean childrenMatchedExact() {
        return childrenMatchedExact;
    }

    /**
     * The plan that produced the answer: {@link JoinQuery.Plan#KEYS_FIRST} or
     * {@link JoinQuery.Plan#CHILDREN_FIRST} (never {@code AUTO}, which picks one of them).
     *
     * @return the plan that answered; {@link JoinQuery.Plan#KEYS_FIRST} for {@link Join#childrenOf}
     */
    public JoinQuery.Plan plan() {
        return plan;
    }

    /**
     * Children read in the child order and filtered by their parents ({@link JoinQuery.Plan#CHILDREN_FIRST},
     * and the first round trip of {@link JoinQuery.Plan#AUTO}); 0 when the join read none that way.
     *
     * @return the number of children read in the child order
     */
    public int childrenRead() {
        return childrenRead;
    }

    /**
     * Parent keys sent to the child side in {@code terms} queries by this call.
     *
     * @return the number of keys shipped; 0 when none was (the cap was exceeded, no parent matched,
     *     or children-first answered)
     */
    public int keysShipped() {
        return keysShipped;
    }

    /**
     * How many {@code terms} queries carried those keys (one per {@code index.max_terms_count} keys).
     *
     * @return the number of {@code terms} batches, 0 when no key was shipped
     */
    public int termsBatches() {
        return termsBatches;
    }

    /**
     * The {@code index.max_terms_count} of the child index the keys were batched to.
     *
     * @return the most keys per batch: the index setting as esrel last knew it (65,536 until read),
     *     or {@link Join.Builder#maxTermsCount(int)} when set
     */
    public int maxTermsCount() {
        return maxTermsCount;
    }

    /**
     * The fan-out cap this join ran with ({@link Join.Builder#maxParents(int)}).
     *
     * @return the most parents one call reads
     */
    public int maxParents() {
        return maxParents;
    }

    /**
     * Requests sent to the cluster, one per round trip.
     *
     * @return the number of round trips, the size of {@link #requests()}
     */
    public int roundTrips() {
        return requests.size();
    }

    /**
     * What each round trip was, in order (e.g. {@code "search [users] 1,204 parents"}).
     *
     * @return one description per round trip, unmodifiable
     */
    public List<String> requests() {
        return requests;
    }

    /**
     * Wall time of the whole join.
     *
     * @return the time from the call to the result, all round trips included
     */
    public Duration took() {
        return took;
    }

    /**
     * Where the next page starts: for {@link Join#childrenOf} a cursor on the parent side, present
     * when parents remain (also after {@link Status#PARTIAL}); for {@link Join#childrenWhereParent} a
     * cursor on the child side, present while children may follow (the next page may then be empty).
     *
     * @return the cursor for the next page, or empty when this was the last one
     */
    public Optional<JoinCursor> next() {
        return Optional.ofNullable(next);
    }

    /**
     * {@link Join#childrenWhereParent}: whether children may follow this page.
     *
     * @return {@code true} when {@link #next()} is present
     */
    public boolean hasMoreChildren() {
        return next != null;
    }

    /**
     * Why the join stopped at its cap and what to do instead (denormalize the parent fields the query
     * filters on into the children); {@code null} when {@link #complete()}.
     *
     * @return the advice, or {@code null}
     */
    public @Nullable String advice() {
        return advice;
    }

    /**
     * This result, if complete.
     *
     * @return this result, when its status is {@link Status#COMPLETE}
     * @throws JoinCapExceededException for {@link Status#PARTIAL} and {@link Status#CAP_EXCEEDED}
     */
    public JoinResult<P, C> orThrow() {
        if (status != Status.COMPLETE) {
            throw new JoinCapExceededException(this);
        }
        return this;
    }

    /**
     * One line for logs.
     *
     * @return the status, plan, counts of pairs, parents read, keys shipped and round trips, and the
     *     time taken, in one line
     */
    public String describe() {
        return status + " (" + plan + "): " + pairs.size() + " pair(s) of " + parents.size() + " parent(s); read "
                + parentsRead + " of " + (parentsMatchedExact ? "" : ">=") + parentsMatched + " matching parent(s)"
                + (childrenRead > 0 ? " and " + childrenRead + " child(ren) in child order" : "") + ", shipped "
                + keysShipped
                + " key(s) in " + termsBatches + " terms batch(es) (max_terms_count " + maxTermsCount + "); "
                + roundTrips()
                + " round trip(s) in " + took.toMillis() + " ms" + (next == null ? "" : "; more follow");
    }

    @Override
    public String toString() {
        return "JoinResult{" + describe() + '}';
    }
}
