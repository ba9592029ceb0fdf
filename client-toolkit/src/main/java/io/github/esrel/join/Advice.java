package io.github.esrel.join;

/**
 * What {@link JoinResult#advice()} says when a join stops at its fan-out cap: what happened, and to
 * denormalize instead, naming the indices and the parent query.
 */
final class Advice {

    private Advice() {}

    /** {@link JoinResult.Status#CAP_EXCEEDED}: more parents match than the cap, so no key was shipped. */
    static String capExceeded(JoinQuery<?, ?> q, long matched, boolean exact, int maxParents) {
        return "application-side join stopped at its cap: the parent query on [" + q.parentIndex() + "] matches "
                + (exact ? "" : "more than ") + String.format("%,d", exact ? matched : (long) maxParents)
                + " parents, more than maxParents=" + String.format("%,d", maxParents)
                + ". Picking the best children of [" + q.childIndex()
                + "] in their own order needs the key of every matching parent, so nothing was shipped. Denormalize instead:"
                + " copy the parent fields this query filters on into each child document (esrel's denormalized relations"
                + " keep the copies up to date) and filter [" + q.childIndex()
                + "] alone, in one query. Otherwise narrow the"
                + " parent query, or raise maxParents if the cluster can take terms queries of that size. Parent query: "
                + brief(q.parentQuery());
    }

    /** {@link JoinResult.Status#PARTIAL}: {@link Join#childrenOf} read the cap and found too few parents with children. */
    static String partial(JoinQuery<?, ?> q, int found, int maxParents) {
        return "application-side join stopped at its cap: read maxParents=" + String.format("%,d", maxParents)
                + " parents of [" + q.parentIndex() + "] and only " + found + " of them have children in ["
                + q.childIndex()
                + "] matching the child query (" + q.parentsPerPage()
                + " wanted). When few parents have matching children, a join"
                + " must read parents by the thousand to fill a page. Denormalize instead: copy the parent fields the parent"
                + " query filters on into each child document (esrel's denormalized relations keep the copies up to date)"
                + " and query [" + q.childIndex()
                + "] alone. next() continues with the following parents. Parent query: "
                + brief(q.parentQuery());
    }

    /** A query for a message: the client's rendering, cut short. */
    static String brief(Object query) {
        String s = String.valueOf(query).replaceFirst("^Query: ", "");
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
