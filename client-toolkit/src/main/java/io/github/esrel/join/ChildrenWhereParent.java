package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.Time;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.json.JsonpUtils;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One page of {@link Join#childrenWhereParent}: opens the child side (the index directly, or a point
 * in time from the cursor or for {@link Join.Builder#consistentPaging(boolean)}), runs the query's
 * plan and closes the point in time with the last page.
 *
 * <p>Plans: {@link JoinQuery.Plan#KEYS_FIRST} goes straight to {@link KeysFirst};
 * {@link JoinQuery.Plan#AUTO} and {@link JoinQuery.Plan#CHILDREN_FIRST} start with
 * {@link ChildrenFirst}'s first round trip, which either answers, stops at the cap, or hands keys-first
 * what it learned (every matching parent, when its preview read them all). One instance per call.
 */
final class ChildrenWhereParent<P, C> {

    private final Searcher searcher;
    private final TermsBatches batches;
    private final ParentCounts parentCounts;
    private final ChildOrderBounds bounds;
    private final RecentKeys recentKeys;
    private final JoinSettings settings;
    private final JoinQuery<P, C> q;
    private final Time keepAlive;
    private final Trips trips = new Trips();
    private final long start = System.nanoTime();

    ChildrenWhereParent(
            Searcher searcher,
            TermsBatches batches,
            ParentCounts parentCounts,
            ChildOrderBounds bounds,
            RecentKeys recentKeys,
            JoinSettings settings,
            JoinQuery<P, C> q) {
        this.searcher = searcher;
        this.batches = batches;
        this.parentCounts = parentCounts;
        this.bounds = bounds;
        this.recentKeys = recentKeys;
        this.settings = settings;
        this.q = q;
        this.keepAlive = settings.keepAlive();
    }

    /**
     * Reads the page.
     *
     * @param cursor where to continue (a cursor of this kind of join), or {@code null} for the first page
     */
    JoinResult<P, C> page(@Nullable JoinCursor cursor) {
        ChildSide side;
        boolean opened = false;
        if (cursor != null) {
            String pit = cursor.pitId();
            if (pit == null) {
                pit = Pits.open(searcher.client(), q.childIndex(), keepAlive, trips);
                opened = true;
            }
            side = ChildSide.pit(q.childIndex(), pit, keepAlive, cursor.searchAfter(), cursor.offset());
        } else if (settings.consistentPaging()) {
            side = ChildSide.pit(
                    q.childIndex(),
                    Pits.open(searcher.client(), q.childIndex(), keepAlive, trips),
                    keepAlive,
                    List.of(),
                    q.from());
            opened = true;
        } else {
            side = ChildSide.direct(q.childIndex(), q.from());
        }
        JoinResult.Builder<P, C> r;
        try {
            r = plan(side);
        } catch (RuntimeException | Error e) {
            // A point in time handed in with a cursor stays open, so that the caller can retry the page.
            String pit = side.pitId(); // there is one when it was opened or switched to
            if ((opened || side.switched()) && pit != null) {
                Pits.close(searcher.client(), pit, q.childIndex(), trips);
            }
            throw e;
        }
        String pit = side.pitId();
        if (!r.hasNext() && pit != null) { // in a point in time
            Pits.close(searcher.client(), pit, q.childIndex(), trips);
        }
        return r.maxParents(settings.maxParents()).cost(trips, start).build(); // the close included
    }

    private JoinResult.Builder<P, C> plan(ChildSide side) {
        MatchingParents<P> parents = null;
        int childrenRead = 0;
        KeysFirst<P, C> keysFirst = new KeysFirst<>(searcher, batches, settings, q, side, trips);
        KeysFirst.Prefetched prefetched = null;
        String question = null;
        if (q.plan() != JoinQuery.Plan.KEYS_FIRST) {
            // Asked again within the minute, a question keys-first answered from the preview's keys starts from the
            // keys of the last answer (RecentKeys). With _id keys, one round trip checks that they are still those of
            // every matching parent (counts, no parent read) and reads their children; the last page's parents are
            // checked for changes in the same search (PageParents), or read beside it.
            // With other keys, the preview runs and the searches of keys-first's second round trip go beside it, for
            // the last answer's keys: when the preview finds the same keys, the join is answered in one round trip.
            question = side.inPit() ? null : keysFirstQuestion(side);
            List<String> lastKeys = question == null ? null : recentKeys.get(question, 1);
            if (question != null && lastKeys != null && q.parentKeyIsId() && q.plan() == JoinQuery.Plan.AUTO) {
                JoinResult.Builder<P, C> again =
                        keysFirst.joinIfStillMatching(lastKeys, recentKeys.page(pageQuestion(question)));
                if (again != null) {
                    remember(question, lastKeys, keysFirst);
                    return finish(again, 0);
                }
                lastKeys = null; // they changed: their children are of no use
            }
            List<SearchRequest> ahead = lastKeys == null ? List.of() : keysFirst.prefetch(lastKeys);
            ChildrenFirst.Outcome<P, C> o = new ChildrenFirst<>(
                            searcher, parentCounts, bounds, recentKeys, settings, q, side, trips)
                    .run(
                            ahead,
                            ahead.isEmpty() || lastKeys == null
                                    ? null
                                    : "children of the last answer's " + lastKeys.size() + " parent keys"
                                            + (ahead.size() > 1 ? " and those parents" : ""));
            childrenRead = o.childrenRead;
            if (o.answered()) {
                forget(question);
                return finish(answered(o, side), childrenRead);
            }
            if (o.capExceeded) {
                forget(question);
                return finish(capExceeded(o), childrenRead);
            }
            parents = o.parents;
            if (o.beside != null && parents != null && lastKeys != null) { // beside: searches for the last keys
                prefetched = new KeysFirst.Prefetched(lastKeys, o.beside);
            }
        }
        JoinResult.Builder<P, C> r = keysFirst.join(parents, prefetched);
        // Only keys-first taking over from a preview that held every matching parent can be repeated so.
        if (parents != null) {
            remember(question, List.copyOf(parents.keys), keysFirst);
        } else {
            forget(question);
        }
        return finish(r, childrenRead);
    }

    /** Remembers the keys of a keys-first answer and of the parents on its page, for the question asked again. */
    private void remember(@Nullable String question, List<String> keys, KeysFirst<P, C> answered) {
        if (question != null) {
            recentKeys.put(question, List.of(keys));
            recentKeys.putPage(pageQuestion(question), answered.page());
        }
    }

    private void forget(@Nullable String question) {
        if (question != null) {
            recentKeys.put(question, List.of());
            recentKeys.putPage(pageQuestion(question), null);
        }
    }

    /**
     * The question whose page's parents {@link RecentKeys} keeps: the parents as read, so the source filter they were
     * read with is part of it (the keys do not depend on it).
     */
    private String pageQuestion(String question) {
        return question + " "
                + (q.parentSource() == null
                        ? ""
                        : JsonpUtils.toJsonString(
                                q.parentSource(), searcher.client()._jsonpMapper()));
    }

    /** This page's question as keys-first asks it, for {@link RecentKeys}: the parents, the children, their order. */
    private String keysFirstQuestion(ChildSide side) {
        JsonpMapper mapper = searcher.client()._jsonpMapper();
        return "keys-first " + ChildrenFirst.condition(q, mapper) + " " + q.parentKey() + " " + q.childKey() + " "
                + ChildrenFirst.childRead(q, side, mapper) + " " + side.from() + " " + q.childrenPerPage();
    }

    private JoinResult.Builder<P, C> answered(ChildrenFirst.Outcome<P, C> o, ChildSide side) {
        int window = side.from() + q.childrenPerPage();
        return JoinResult.<P, C>builder(JoinResult.Status.COMPLETE, JoinQuery.Plan.CHILDREN_FIRST)
                .pairs(Objects.requireNonNull(o.pairs, "an answered outcome has its page"))
                .parentSide(o.parentsMatched, o.parentsExact, o.parentsRead)
                .childrenMatched(o.found, o.childrenExhausted)
                .maxTermsCount(batches.limit(q.childIndex()))
                .next(o.more ? side.next(window, o.lastSort) : null);
    }

    private JoinResult.Builder<P, C> capExceeded(ChildrenFirst.Outcome<P, C> o) {
        return JoinResult.<P, C>builder(JoinResult.Status.CAP_EXCEEDED, JoinQuery.Plan.CHILDREN_FIRST)
                .parents(List.of())
                .parentSide(o.parentsMatched, o.parentsExact, o.parentsRead)
                .childrenMatched(-1, false)
                .maxTermsCount(batches.limit(q.childIndex()))
                .advice(Advice.capExceeded(q, o.parentsMatched, o.parentsExact, settings.maxParents())
                        + " (children-first: " + o.reason + ")");
    }

    /** What every plan's result carries: the children read in the child order. */
    private JoinResult.Builder<P, C> finish(JoinResult.Builder<P, C> result, int childrenRead) {
        return result.childrenRead(childrenRead);
    }
}
