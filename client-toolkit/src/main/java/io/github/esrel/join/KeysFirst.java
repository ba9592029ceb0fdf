package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.Time;
import co.elastic.clients.elasticsearch._types.aggregations.Aggregate;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import co.elastic.clients.elasticsearch.core.search.TotalHitsRelation;
import co.elastic.clients.json.JsonData;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The keys-first plan of {@link Join#childrenWhereParent} ({@link JoinQuery.Plan#KEYS_FIRST}): read the
 * key of every parent matching the parent query, then the first children of those keys in the child
 * order, with one {@code terms} query per batch of keys ({@link TermsBatches}), all in one round trip.
 *
 * <p>Why it is exact: each batch returns its own first {@code from + childrenPerPage} children in the
 * child order, so the first children of all the keys are among them; merged by their sort values
 * ({@link SortValues}), duplicates dropped, they are the join's first children. Batches break ties in
 * batch order, not in the {@code _shard_doc} order later pages read in, so a page merged from several
 * batches that is read directly and followed by more is read again from a point in time
 * ({@link ChildSide#switchToPit}).
 *
 * <p>One instance per call: it pages the parent keys of that call and reads one page of children.
 */
final class KeysFirst<P, C> {

    /**
     * The first children of the keys, merged over the terms batches.
     *
     * @param hits the merged children, in the child order, at most one more than the window
     * @param matched how many children of the keys match, summed over the batches
     * @param more whether children follow the window
     */
    private record ChildHits(
            TermsBatches.Answers<JsonData> answers,
            List<Hit<JsonData>> hits,
            long matched,
            boolean exact,
            boolean more) {}

    private final Searcher searcher;
    private final TermsBatches batches;
    private final JoinSettings settings;
    private final JoinQuery<P, C> q;
    private final ChildSide side;
    private final Trips trips;
    private final Time keepAlive;
    /** The parents read as hits, by key, with their {@code _seq_no} ({@link PageParents}). */
    private final Map<String, Hit<JsonData>> readParents = new HashMap<>();
    /** Whether the last page's parents had changed when this call checked them ({@link PageParents#changed}). */
    private boolean pageChanged;
    /** The parents on the page answered. */
    private PageParents page = PageParents.NONE;

    KeysFirst(
            Searcher searcher,
            TermsBatches batches,
            JoinSettings settings,
            JoinQuery<P, C> q,
            ChildSide side,
            Trips trips) {
        this.searcher = searcher;
        this.batches = batches;
        this.settings = settings;
        this.q = q;
        this.side = side;
        this.trips = trips;
        this.keepAlive = settings.keepAlive();
    }

    /**
     * The answers of {@link #prefetch} for some keys, read before the keys were known to be the matching parents'.
     *
     * @param keys the keys the searches were built for
     * @param responses the answers, in the order of {@link #prefetch}'s searches
     */
    record Prefetched(List<String> keys, List<ResponseBody<JsonData>> responses) {}

    /**
     * The searches the join sends once it knows the keys, for keys it expects: the children of the keys, in one batch,
     * and the matching parents of the keys beside them when the preview reads keys alone. Empty when the keys need
     * several batches (as known now) or the side reads a point in time.
     */
    List<SearchRequest> prefetch(List<String> keys) {
        if (side.inPit() || keys.isEmpty() || keys.size() > batches.limit(q.childIndex())) {
            return List.of();
        }
        List<SearchRequest> out = new ArrayList<>();
        out.add(Requests.childBatch(q, side, keys, side.from() + q.childrenPerPage()));
        if (Requests.previewReadsKeysOnly(q) && q.parentFetch() == JoinQuery.ParentFetch.EAGER) {
            out.add(Requests.parentsByKey(q, keys, true));
        }
        return out;
    }

    /**
     * Joins this page keys-first.
     *
     * @param known every matching parent, when the first round trip of {@link JoinQuery.Plan#AUTO} already read
     *     them all; {@code null} to read them here
     * @return the result but for what the caller adds: the children read before, the cap and the cost
     */
    JoinResult.Builder<P, C> join(@Nullable MatchingParents<P> known) {
        return join(known, null);
    }

    /**
     * {@link #join(MatchingParents)}, with the answers of {@link #prefetch} read beside the first round trip: used
     * when they were built for exactly the keys of the matching parents, else ignored.
     */
    JoinResult.Builder<P, C> join(@Nullable MatchingParents<P> known, @Nullable Prefetched prefetched) {
        MatchingParents<P> parents = known != null ? known : collectParents();
        if (parents.exceeded) {
            return JoinResult.<P, C>builder(JoinResult.Status.CAP_EXCEEDED, JoinQuery.Plan.KEYS_FIRST)
                    .parents(List.of())
                    .parentSide(parents.total, parents.exact, parents.read)
                    .childrenMatched(-1, false)
                    .maxTermsCount(batches.limit(q.childIndex()))
                    .advice(Advice.capExceeded(q, parents.total, parents.exact, settings.maxParents()));
        }
        List<String> keys = new ArrayList<>(parents.keys);
        if (keys.isEmpty()) {
            return JoinResult.<P, C>builder(JoinResult.Status.COMPLETE, JoinQuery.Plan.KEYS_FIRST)
                    .parents(List.of())
                    .parentSide(parents.total, parents.exact, parents.read)
                    .childrenMatched(0, true)
                    .maxTermsCount(batches.limit(q.childIndex()));
        }

        int from = side.from();
        int window = from + q.childrenPerPage();
        // Eager parents whose keys alone are known (AUTO's preview) are read next to their children: one
        // round trip for both.
        boolean parentsAlongside = parents.keysOnly && q.parentFetch() == JoinQuery.ParentFetch.EAGER;
        ChildHits found = prefetched != null
                        && prefetched.responses().size() == (parentsAlongside ? 2 : 1)
                        && new HashSet<>(prefetched.keys()).equals(parents.keys)
                ? childHits(
                        new TermsBatches.Answers<>(
                                prefetched.responses().subList(0, 1),
                                1,
                                batches.limit(q.childIndex()),
                                prefetched
                                        .responses()
                                        .subList(1, prefetched.responses().size())),
                        window)
                : childrenOfKeys(keys, window, parentsAlongside);
        if (!side.inPit() && found.answers().batches() > 1 && found.more()) {
            // Read directly, ties between batches merge in batch order, but in _shard_doc order in a point in
            // time: the next page could not start exactly where this one ends. Read this page as the next
            // pages will be read (rare: only joins whose keys need several terms batches).
            side.switchToPit(Pits.open(searcher.client(), q.childIndex(), keepAlive, trips), keepAlive);
            found = childrenOfKeys(keys, window, parentsAlongside);
        }
        List<Hit<JsonData>> page = found.hits()
                .subList(
                        Math.min(from, found.hits().size()),
                        Math.min(window, found.hits().size()));

        Map<String, Doc<P>> parentDocs = parents.docs;
        readParents.putAll(parents.hits);
        if (parentsAlongside) {
            parentDocs = byKey(found.answers().alongside().get(0));
        } else if (q.parentFetch() == JoinQuery.ParentFetch.LAZY && !page.isEmpty()) {
            parentDocs = parentsOf(page, parents.keys);
        }
        return answer(parents, keys, found, page, parentDocs);
    }

    /**
     * Keys-first for the keys of the last answer, when they are still the keys of every matching parent: one round
     * trip that checks that ({@link Requests#keysStillMatch}) and reads the children of the keys. The parents of the
     * last answer's page are checked for changes in the same search when they were read with their {@code _seq_no}
     * and held still last time ({@link PageParents}), else read beside it. Parents of the page that were not on the
     * last one, or changed, are read in a second round trip. {@code _id} keys only.
     *
     * @param keys the keys of every parent that matched for the last answer
     * @param last the parents on the last answer's page
     * @return the result, or {@code null} (after one round trip) when the keys no longer hold
     */
    JoinResult.@Nullable Builder<P, C> joinIfStillMatching(List<String> keys, PageParents last) {
        int window = side.from() + q.childrenPerPage();
        boolean checkPage = last.checkable();
        boolean readPage = !checkPage && !last.keys().isEmpty();
        List<SearchRequest> requests = new ArrayList<>(3);
        requests.add(Requests.keysStillMatch(q, keys, checkPage ? last : null));
        requests.add(Requests.childBatch(q, side, keys, window));
        if (readPage) {
            requests.add(Requests.parentsByKey(q, last.keys(), true));
        }
        List<ResponseBody<JsonData>> r;
        try {
            r = searcher.run(
                    "check that the last answer's " + keys.size() + " parent keys still match"
                            + (checkPage ? " and its page's " + last.keys().size() + " parents are unchanged" : "")
                            + ", their children"
                            + (readPage ? " and the " + last.keys().size() + " parents of its page" : ""),
                    q.parentIndex() + "," + q.childIndex(),
                    requests,
                    JsonData.class,
                    trips);
        } catch (Searcher.TermsLimitHit e) {
            return null; // a lower index.max_terms_count than known: the usual way reads it
        }
        ResponseBody<JsonData> check = r.get(0);
        Aggregate matchingAmongKeys = check.aggregations().get(Requests.MATCHING_AMONG_KEYS);
        if (check.hits().total() == null
                || check.hits().total().relation() != TotalHitsRelation.Eq
                || check.hits().total().value() != keys.size()
                || matchingAmongKeys == null
                || matchingAmongKeys.filter().docCount() != keys.size()) {
            return null;
        }
        MatchingParents<P> parents = new MatchingParents<>();
        parents.keys.addAll(keys);
        parents.total = keys.size();
        parents.exact = true;
        ChildHits found = childHits(
                new TermsBatches.Answers<>(r.subList(1, 2), 1, batches.limit(q.childIndex()), List.of()), window);
        List<Hit<JsonData>> page = found.hits()
                .subList(
                        Math.min(side.from(), found.hits().size()),
                        Math.min(window, found.hits().size()));
        Set<String> wanted = new LinkedHashSet<>(page.stream()
                .map(h -> Keys.firstIn(h, q.childKey(), parents.keys))
                .filter(Objects::nonNull)
                .toList());
        Map<String, Doc<P>> parentDocs = new HashMap<>();
        if (checkPage) {
            pageChanged =
                    !last.unchanged(matchingAmongKeys.filter().aggregations().get(Requests.PAGE_PARENTS));
            Map<String, Hit<JsonData>> lastHits =
                    Objects.requireNonNull(last.hits(), "a checkable page has its parents");
            for (String key : pageChanged ? Set.<String>of() : wanted) {
                Hit<JsonData> hit = lastHits.get(key);
                if (hit != null) {
                    readParents.put(key, hit);
                    parentDocs.put(key, searcher.sources().doc(hit, q.parentType()));
                }
            }
        } else if (readPage) {
            parentDocs.putAll(byKey(r.get(2)));
            parents.read = parentDocs.size();
            // Parents known by key alone last time: nothing to compare, so taken as holding still.
            pageChanged = last.hits() != null && !last.sameAs(readParents);
        }
        List<String> missing =
                wanted.stream().filter(k -> !parentDocs.containsKey(k)).toList();
        if (!missing.isEmpty()) {
            String what = "the " + missing.size() + " parent(s) of the page";
            ResponseBody<JsonData> more =
                    searcher.one(what, q.parentIndex(), Requests.parentsByKey(q, missing, true), JsonData.class, trips);
            parentDocs.putAll(byKey(more));
            parents.read += more.hits().hits().size();
        }
        return answer(parents, keys, found, page, parentDocs);
    }

    /** The result of a page of children and their parents. */
    private JoinResult.Builder<P, C> answer(
            MatchingParents<P> parents,
            List<String> keys,
            ChildHits found,
            List<Hit<JsonData>> page,
            Map<String, Doc<P>> parentDocs) {
        int window = side.from() + q.childrenPerPage();
        List<Pair<P, C>> pairs = new ArrayList<>(page.size());
        Set<String> onPage = new LinkedHashSet<>();
        for (Hit<JsonData> h : page) {
            String key = Keys.firstIn(h, q.childKey(), parents.keys);
            Doc<P> parent = key == null ? null : parentDocs.get(key);
            if (parent == null) {
                // The child's key matched a batch but the parent is gone (deleted between the two reads).
                continue;
            }
            onPage.add(key);
            pairs.add(new Pair<>(parent, searcher.sources().doc(h, q.childType())));
        }
        this.page = PageParents.of(onPage, readParents, pageChanged);
        JoinCursor next = found.more() && !page.isEmpty()
                ? side.next(window, page.get(page.size() - 1).sort())
                : null;
        return JoinResult.<P, C>builder(JoinResult.Status.COMPLETE, JoinQuery.Plan.KEYS_FIRST)
                .pairs(pairs)
                .parentSide(parents.total, parents.exact, parents.read)
                .childrenMatched(found.matched(), found.exact())
                .keysShipped(keys.size(), found.answers().batches())
                .maxTermsCount(found.answers().limit())
                .next(next);
    }

    /**
     * Every matching parent's key, up to the cap. The first page is read directly and counts the matches:
     * over the cap, the join stops there; within one page, it is the answer.
     */
    private MatchingParents<P> collectParents() {
        int maxParents = settings.maxParents();
        MatchingParents<P> out = new MatchingParents<>();
        KeyPage<P> first = keyPage(
                "parent keys",
                Requests.parentKeys(
                        q, null, keepAlive, List.of(), Math.min(settings.pageSize(), maxParents), maxParents + 1));
        out.total = first.total();
        out.exact = first.exact();
        if (out.total > maxParents) {
            out.exceeded = true;
            out.read = first.size();
            return out;
        }
        if (first.size() >= out.total) {
            out.add(first);
            return out;
        }
        out.read = first.size();
        collectInPointInTime(out);
        return out;
    }

    /**
     * More parents than one page: reads them all again from one point in time, so that every page is
     * from the same view of the index (the first page was read without one).
     */
    private void collectInPointInTime(MatchingParents<P> out) {
        int maxParents = settings.maxParents();
        int pageSize = settings.pageSize();
        int matched = 0;
        String pit = Pits.open(searcher.client(), q.parentIndex(), keepAlive, trips);
        try {
            List<FieldValue> after = List.of();
            while (true) {
                KeyPage<P> page = keyPage(
                        "parent keys (point in time)",
                        Requests.parentKeys(q, pit, keepAlive, after, pageSize, maxParents + 1));
                if (page.pitId() != null) {
                    pit = page.pitId();
                }
                out.add(page);
                matched += page.size();
                if (matched > maxParents) {
                    // More matched in the point in time than in the first count (parents were added).
                    out.exceeded = true;
                    out.total = matched;
                    out.exact = false;
                    return;
                }
                if (page.size() < pageSize) {
                    out.total = matched;
                    out.exact = true;
                    return;
                }
                after = page.lastSort();
            }
        } finally {
            Pits.close(searcher.client(), pit, q.parentIndex(), trips);
        }
    }

    /** Eager pages carry typed parents; lazy ones only keys, read lean (see {@link KeyPage#keysOnly}). */
    private KeyPage<P> keyPage(String what, SearchRequest request) {
        return q.parentFetch() == JoinQuery.ParentFetch.LAZY
                ? KeyPage.keysOnly(searcher.client(), what, q.parentIndex(), request, q.parentKey(), trips)
                : KeyPage.typed(searcher, what, q.parentIndex(), request, q, trips);
    }

    /**
     * The first {@code window} children of these keys after the side's position, merged over the terms
     * batches; with the matching parents of the keys in the same round trip when {@code withParents}.
     */
    private ChildHits childrenOfKeys(List<String> keys, int window, boolean withParents) {
        // In a point in time the total ignores search_after: one child more than the page tells whether more follow.
        int size = side.inPit() ? window + 1 : window;
        TermsBatches.Answers<JsonData> answers = batches.run(
                q.childIndex(),
                keys,
                Integer.MAX_VALUE,
                batch -> Requests.childBatch(q, side, batch, size),
                withParents ? List.of(Requests.parentsByKey(q, keys, true)) : List.of(),
                JsonData.class,
                trips,
                "children of " + keys.size() + " parent key(s)" + (withParents ? " and those parents" : ""));
        return childHits(answers, window);
    }

    /** The first {@code window} children of the batches' answers, merged. */
    private ChildHits childHits(TermsBatches.Answers<JsonData> answers, int window) {
        List<Hit<JsonData>> hits = new ArrayList<>();
        long matched = 0;
        boolean exact = true;
        for (ResponseBody<JsonData> r : answers.responses()) {
            side.update(r);
            hits.addAll(r.hits().hits());
            if (r.hits().total() != null) {
                matched += r.hits().total().value();
                exact &= r.hits().total().relation() == TotalHitsRelation.Eq;
            }
        }
        if (answers.responses().size() > 1) {
            // Stable: ties keep batch order, as one search would keep shard order.
            Comparator<List<FieldValue>> order = SortValues.comparator(side.sort(q));
            hits.sort((a, b) -> order.compare(a.sort(), b.sort()));
            Set<String> seen = new HashSet<>();
            hits.removeIf(h -> !seen.add(h.index() + "/" + h.id()));
        }
        boolean more = hits.size() > window || (!side.inPit() && (matched > window || !exact));
        return new ChildHits(answers, hits, matched, exact, more);
    }

    /** The parents on the page this join answered; {@link PageParents#NONE} before. */
    PageParents page() {
        return page;
    }

    /**
     * The parents of an answer by key (the first hit of a key when several parents share it), their hits kept in
     * {@link #readParents}.
     */
    private Map<String, Doc<P>> byKey(ResponseBody<JsonData> r) {
        Map<String, Doc<P>> out = new HashMap<>();
        for (Hit<JsonData> h : r.hits().hits()) {
            String key = Keys.of(h, q.parentKey());
            if (key != null && !out.containsKey(key)) {
                out.put(key, searcher.sources().doc(h, q.parentType()));
                readParents.put(key, h);
            }
        }
        return out;
    }

    /** {@link JoinQuery.ParentFetch#LAZY}: the parents of the page's children, read now that the page is known. */
    private Map<String, Doc<P>> parentsOf(List<Hit<JsonData>> page, Set<String> keys) {
        List<String> wanted = new ArrayList<>(new LinkedHashSet<>(page.stream()
                .map(h -> Keys.firstIn(h, q.childKey(), keys))
                .filter(Objects::nonNull)
                .toList()));
        return ParentsByKey.read(searcher, q, wanted, false, "the " + wanted.size() + " parent(s) of the page", trips)
                .byKey();
    }
}
