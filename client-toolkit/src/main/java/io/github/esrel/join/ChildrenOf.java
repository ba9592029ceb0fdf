package io.github.esrel.join;

import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.InnerHitsResult;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import co.elastic.clients.json.JsonData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One page of {@link Join#childrenOf}: parents in the parent order ({@link ParentPages}), each page of
 * parents followed by one search for their best children, collapsed on the child key and batched to
 * the child index's {@code index.max_terms_count} ({@link TermsBatches}), until the page of parents is
 * full, the parents run out, or the cap is read ({@link JoinResult.Status#PARTIAL}). One instance per
 * call.
 */
final class ChildrenOf<P, C> {

    /** Groups per collapse search (each is a hit, so at most the default {@code index.max_result_window}). */
    static final int MAX_COLLAPSE_GROUPS = 10_000;

    /** The best children of one parent, and how many of its children match in all. */
    private record ChildGroup<C>(List<Doc<C>> children, long total) {}

    private final Searcher searcher;
    private final TermsBatches batches;
    private final JoinSettings settings;
    private final JoinQuery<P, C> q;
    private final Trips trips = new Trips();
    private final long start = System.nanoTime();

    // What this page has read and shipped so far, for the result.
    private long parentsMatched = -1;
    private boolean parentsExact;
    private int read;
    private long childrenMatched;
    private int keysShipped;
    private int termsBatches;
    private int maxTermsCount;

    ChildrenOf(Searcher searcher, TermsBatches batches, JoinSettings settings, JoinQuery<P, C> q) {
        this.searcher = searcher;
        this.batches = batches;
        this.settings = settings;
        this.q = q;
        this.maxTermsCount = batches.limit(q.childIndex());
    }

    /**
     * Reads the page.
     *
     * @param cursor where to continue (a cursor of this kind of join), or {@code null} for the first page
     */
    JoinResult<P, C> page(@Nullable JoinCursor cursor) {
        int maxParents = settings.maxParents();
        ParentPages<P> pages = new ParentPages<>(
                searcher,
                q,
                settings.keepAlive(),
                cursor,
                settings.consistentPaging(),
                Math.max(settings.pageSize(), Join.DEFAULT_PAGE_SIZE),
                trips);
        List<ParentWithChildren<P, C>> out = new ArrayList<>();
        boolean exhausted = false;
        boolean capped = false;
        boolean done = false;
        try {
            while (out.size() < q.parentsPerPage()) {
                if (read >= maxParents) {
                    capped = true;
                    break;
                }
                int wanted = q.includeChildless() ? q.parentsPerPage() - out.size() : settings.pageSize();
                ParentPages.Page<P> page = pages.fetch(Math.min(wanted, maxParents - read));
                if (parentsMatched < 0) {
                    parentsMatched = page.total();
                    parentsExact = page.totalExact();
                }
                if (page.hits().isEmpty()) {
                    exhausted = true;
                    break;
                }
                int consumed = pair(page.hits(), bestChildren(page.hits()), out);
                pages.consumed(page, consumed);
                if (!page.more() && consumed == page.hits().size()) {
                    exhausted = true;
                    break;
                }
            }
            done = true;
        } finally {
            // On a failure, a point in time handed in with a cursor stays open so that the caller can retry.
            if (exhausted || (!done && cursor == null)) {
                pages.close();
            }
        }
        boolean partial = capped && out.size() < q.parentsPerPage();
        List<Pair<P, C>> pairs = new ArrayList<>();
        for (ParentWithChildren<P, C> p : out) {
            p.children().forEach(c -> pairs.add(new Pair<>(p.parent(), c)));
        }
        return JoinResult.<P, C>builder(
                        partial ? JoinResult.Status.PARTIAL : JoinResult.Status.COMPLETE, JoinQuery.Plan.KEYS_FIRST)
                .pairs(pairs)
                .parents(out)
                .parentSide(parentsMatched, parentsExact, read)
                .childrenMatched(childrenMatched, true)
                .keysShipped(keysShipped, termsBatches)
                .maxTermsCount(maxTermsCount)
                .maxParents(maxParents)
                .next(exhausted ? null : pages.cursor())
                .advice(partial ? Advice.partial(q, out.size(), maxParents) : null)
                .cost(trips, start)
                .build();
    }

    /**
     * Adds these parents with their children to the page, until it is full.
     *
     * @return how many of the parents were looked at (the rest start the next page)
     */
    private int pair(List<Hit<P>> parents, Map<String, ChildGroup<C>> groups, List<ParentWithChildren<P, C>> out) {
        int consumed = 0;
        for (Hit<P> h : parents) {
            consumed++;
            read++;
            ChildGroup<C> g = groups.get(Keys.of(h, q.parentKey()));
            if (g != null) {
                childrenMatched += g.total();
                out.add(new ParentWithChildren<>(Doc.of(h), g.children(), g.total()));
            } else if (q.includeChildless()) {
                out.add(new ParentWithChildren<>(Doc.of(h), List.of(), 0));
            }
            if (out.size() == q.parentsPerPage()) {
                break;
            }
        }
        return consumed;
    }

    /** The best children of each of these parents, by key: one collapse search per terms batch, in one round trip. */
    private Map<String, ChildGroup<C>> bestChildren(List<Hit<P>> parents) {
        List<String> keys = new ArrayList<>(new LinkedHashSet<>(parents.stream()
                .map(h -> Keys.of(h, q.parentKey()))
                .filter(Objects::nonNull)
                .toList()));
        Map<String, ChildGroup<C>> groups = new HashMap<>();
        if (keys.isEmpty()) {
            return groups;
        }
        TermsBatches.Answers<Void> answers = batches.run(
                q.childIndex(),
                keys,
                MAX_COLLAPSE_GROUPS,
                batch -> Requests.collapse(
                        q.childIndex(),
                        Requests.childrenOf(q.childQuery(), q.childKey(), batch),
                        q.childKey(),
                        0,
                        batch.size(),
                        q.childrenPerParent(),
                        q.childSort(),
                        q.childSource()),
                List.of(),
                Void.class,
                trips,
                "best " + q.childrenPerParent() + " children of each of " + keys.size() + " parents");
        keysShipped += keys.size();
        termsBatches += answers.batches();
        maxTermsCount = answers.limit();
        for (ResponseBody<Void> r : answers.responses()) {
            for (Hit<Void> group : r.hits().hits()) {
                groups.put(Keys.of(group, q.childKey()), group(group.innerHits().get(Requests.GROUP_HITS)));
            }
        }
        return groups;
    }

    private ChildGroup<C> group(@Nullable InnerHitsResult inner) {
        List<Doc<C>> children = new ArrayList<>();
        long total = 0;
        if (inner != null) {
            for (Hit<JsonData> h : inner.hits().hits()) {
                children.add(searcher.sources().doc(h, q.childType()));
            }
            total = inner.hits().total() == null
                    ? children.size()
                    : inner.hits().total().value();
        }
        return new ChildGroup<>(children, total);
    }
}
