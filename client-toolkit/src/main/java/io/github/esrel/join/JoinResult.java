package io.github.esrel.join;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
    private final JoinCursor next;
    private final String advice;
    private final long skippedChildren;
    private final JoinQuery.Plan plan;
    private final int childrenRead;

    JoinResult(Status status, List<Pair<P, C>> pairs, List<ParentWithChildren<P, C>> parents, long parentsMatched,
               boolean parentsMatchedExact, int parentsRead, long childrenMatched, boolean childrenMatchedExact,
               int keysShipped, int termsBatches, int maxTermsCount, int maxParents, List<String> requests,
               Duration took, JoinCursor next, String advice, long skippedChildren, JoinQuery.Plan plan, int childrenRead) {
        this.status = Objects.requireNonNull(status);
        this.pairs = List.copyOf(pairs);
        this.parents = parents != null ? List.copyOf(parents) : group(this.pairs);
        this.parentsMatched = parentsMatched;
        this.parentsMatchedExact = parentsMatchedExact;
        this.parentsRead = parentsRead;
        this.childrenMatched = childrenMatched;
        this.childrenMatchedExact = childrenMatchedExact;
        this.keysShipped = keysShipped;
        this.termsBatches = termsBatches;
        this.maxTermsCount = maxTermsCount;
        this.maxParents = maxParents;
        this.requests = List.copyOf(requests);
        this.took = took;
        this.next = next;
        this.advice = advice;
        this.skippedChildren = skippedChildren;
        this.plan = Objects.requireNonNull(plan);
        this.childrenRead = childrenRead;
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
        parentsByRef.forEach((ref, parent) -> out.add(new ParentWithChildren<>(parent, children.get(ref), -1)));
        return out;
    }

    public Status status() {
        return status;
    }

    /** True for {@link Status#COMPLETE}. */
    public boolean complete() {
        return status == Status.COMPLETE;
    }

    /**
     * The joined children with their parents: for {@link Join#childrenWhereParent} in the child sort
     * order; for {@link Join#childrenOf} parent by parent, each parent's children in the child sort
     * order. Empty for {@link Status#CAP_EXCEEDED}.
     */
    public List<Pair<P, C>> pairs() {
        return pairs;
    }

    /** The children (of {@link #pairs()}) grouped under their parents, in the order of {@link #pairs()}. */
    public List<ParentWithChildren<P, C>> parents() {
        return parents;
    }

    /** Just the children of {@link #pairs()}, in order. */
    public List<C> children() {
        List<C> out = new ArrayList<>(pairs.size());
        pairs.forEach(p -> out.add(p.child().value()));
        return out;
    }

    /**
     * How many parents match the parent query: exact when {@link #parentsMatchedExact()}, otherwise a
     * lower bound (Elasticsearch stops counting at 10,000, or just past the cap).
     */
    public long parentsMatched() {
        return parentsMatched;
    }

    public boolean parentsMatchedExact() {
        return parentsMatchedExact;
    }

    /** Parents read from the parent side by this call (the fan-out). */
    public int parentsRead() {
        return parentsRead;
    }

    /**
     * How many children match (child query and parent keys): exact when
     * {@link #childrenMatchedExact()}, otherwise a lower bound; -1 when the join did not ask.
     */
    public long childrenMatched() {
        return childrenMatched;
    }

    public boolean childrenMatchedExact() {
        return childrenMatchedExact;
    }

    /**
     * The plan that produced the answer: {@link JoinQuery.Plan#KEYS_FIRST} or
     * {@link JoinQuery.Plan#CHILDREN_FIRST} (never {@code AUTO}, which picks one of them).
     */
    public JoinQuery.Plan plan() {
        return plan;
    }

    /**
     * Children read in the child order and filtered by their parents ({@link JoinQuery.Plan#CHILDREN_FIRST},
     * and the first round trip of {@link JoinQuery.Plan#AUTO}); 0 when the join read none that way.
     */
    public int childrenRead() {
        return childrenRead;
    }

    /** Parent keys sent to the child side in {@code terms} queries by this call. */
    public int keysShipped() {
        return keysShipped;
    }

    /** How many {@code terms} queries carried those keys (one per {@code index.max_terms_count} keys). */
    public int termsBatches() {
        return termsBatches;
    }

    /** The {@code index.max_terms_count} of the child index the keys were batched to. */
    public int maxTermsCount() {
        return maxTermsCount;
    }

    /** The fan-out cap this join ran with ({@link Join.Builder#maxParents(int)}). */
    public int maxParents() {
        return maxParents;
    }

    /** Requests sent to the cluster, one per round trip. */
    public int roundTrips() {
        return requests.size();
    }

    /** What each round trip was, in order (e.g. {@code "search [users] 1,204 parents"}). */
    public List<String> requests() {
        return requests;
    }

    /** Wall time of the whole join. */
    public Duration took() {
        return took;
    }

    /**
     * Where the next page starts: for {@link Join#childrenOf} a cursor on the parent side, present
     * when parents remain (also after {@link Status#PARTIAL}). Always empty for
     * {@link Join#childrenWhereParent}, which pages with {@link JoinQuery.Builder#from(int)} (see
     * {@link #hasMoreChildren()}).
     */
    public Optional<JoinCursor> next() {
        return Optional.ofNullable(next);
    }

    /** {@link Join#childrenWhereParent}: whether more children match beyond this page. */
    public boolean hasMoreChildren() {
        return childrenMatched > 0 && (!childrenMatchedExact || childrenMatched > (long) pairs.size() + skippedChildren);
    }

    /**
     * Why the join stopped at its cap and what to do instead (denormalize the parent fields the query
     * filters on into the children); {@code null} when {@link #complete()}.
     */
    public String advice() {
        return advice;
    }

    /**
     * This result, if complete.
     *
     * @throws JoinCapExceededException for {@link Status#PARTIAL} and {@link Status#CAP_EXCEEDED}
     */
    public JoinResult<P, C> orThrow() {
        if (status != Status.COMPLETE) {
            throw new JoinCapExceededException(this);
        }
        return this;
    }

    /** One line for logs. */
    public String describe() {
        return status + " (" + plan + "): " + pairs.size() + " pair(s) of " + parents.size() + " parent(s); read "
            + parentsRead + " of " + (parentsMatchedExact ? "" : ">=") + parentsMatched + " matching parent(s)"
            + (childrenRead > 0 ? " and " + childrenRead + " child(ren) in child order" : "") + ", shipped " + keysShipped
            + " key(s) in " + termsBatches + " terms batch(es) (max_terms_count " + maxTermsCount + "); " + roundTrips()
            + " round trip(s) in " + took.toMillis() + " ms" + (next == null ? "" : "; more parents follow");
    }

    @Override
    public String toString() {
        return "JoinResult{" + describe() + '}';
    }
}
