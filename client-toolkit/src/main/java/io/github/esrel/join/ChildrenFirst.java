package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import co.elastic.clients.elasticsearch.core.search.TotalHitsRelation;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.json.JsonpUtils;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The first round trip of {@link JoinQuery.Plan#AUTO} and {@link JoinQuery.Plan#CHILDREN_FIRST},
 * and the children-first plan itself: read children in the child order and keep those whose parent
 * matches, until {@code from + childrenPerPage} are found.
 *
 * <p>Why it is exact: each page of children is the next slice of the child order (read directly, one
 * {@code preference} for every page, so that the same shard copies answer and ties come back in one
 * order; in a point in time, {@code search_after} the last child read, in a total order), and a child is kept exactly when one of its keys belongs to a parent matching the parent
 * query — checked by searching the parent index for those keys with the parent query as a filter.
 * The kept children are therefore the first children of the join's answer, in its order, whatever
 * the share of matching parents; that share only decides how many children must be read, so it
 * drives the choice of plan, never the answer.
 */
final class ChildrenFirst<P, C> {

    /** What the first round trip (and the probing, if it ran) learned. */
    static final class Outcome<P, C> {
        /** The answer's page ({@code from} to {@code from + childrenPerPage}); {@code null} when not answered. */
        @Nullable
        List<Pair<P, C>> pairs;
        /** Whether children may follow the page. */
        boolean more;
        /** The sort values of the page's last child (where the next page starts), or empty. */
        List<FieldValue> lastSort = List.of();
        /** Children found whose parent matches (a lower bound unless {@link #childrenExhausted}). */
        int found;
        /** Whether every child matching the child query was read, so that {@link #found} is exact. */
        boolean childrenExhausted;
        /** Every matching parent, when the preview read them all; {@code null} otherwise. */
        @Nullable
        MatchingParents<P> parents;

        long parentsMatched;
        boolean parentsExact;
        int parentsRead;
        int childrenRead;
        /** More parents match than {@link Join.Builder#maxParents(int)} and probing could not answer. */
        boolean capExceeded;
        /** Why keys-first must take over (or the cap was hit), for messages. */
        @Nullable
        String reason;
        /** The answers of the searches sent beside the first round trip, in their order; {@code null} when none. */
        @Nullable
        List<ResponseBody<JsonData>> beside;

        boolean answered() {
            return pairs != null;
        }
    }

    /** A child whose parent matches, with the key that matched. */
    private record Match(Hit<JsonData> child, String key) {}

    private final Searcher searcher;
    private final JsonpMapper mapper;
    private final JoinQuery<P, C> q;
    private final Trips trips;
    private final ChildSide side;
    private final int window;
    private final int previewKeys;
    private final int firstProbe;
    private final int maxProbed;
    private final int maxParents;
    private final String preference = "esrel-join-" + UUID.randomUUID();
    private final ParentCounts parentCounts;
    private final ChildOrderBounds bounds;
    private final RecentKeys recentKeys;
    /** The question as {@link RecentKeys} knows it; {@code null} when its children are not read from the start. */
    private @Nullable String question;
    /** The keys checked in the first round trip, and those of them whose parent matches; {@code null} when none. */
    private @Nullable Set<String> checkedAhead;

    private @Nullable Map<String, Doc<P>> matchingAhead;

    ChildrenFirst(
            Searcher searcher,
            ParentCounts parentCounts,
            ChildOrderBounds bounds,
            RecentKeys recentKeys,
            JoinSettings settings,
            JoinQuery<P, C> q,
            ChildSide side,
            Trips trips) {
        this.searcher = searcher;
        this.parentCounts = parentCounts;
        this.bounds = bounds;
        this.recentKeys = recentKeys;
        this.mapper = searcher.client()._jsonpMapper();
        this.q = q;
        this.trips = trips;
        this.side = side;
        this.window = side.from() + q.childrenPerPage();
        this.previewKeys = settings.previewKeys();
        this.maxProbed = settings.maxProbedChildren();
        // Enough children for the page when a quarter of them have a matching parent.
        this.firstProbe = (int) Math.min(maxProbed, Math.max(Join.MIN_PROBE, 4L * window));
        this.maxParents = settings.maxParents();
    }

    Outcome<P, C> run() {
        return run(List.of(), null);
    }

    /**
     * Runs the first round trip, with {@code beside} sent in it after its own searches (their answers in
     * {@link Outcome#beside}), then probes if that is the plan.
     *
     * @param beside searches to send in the first round trip; if they make it fail, it is sent again without them
     * @param what names them in the round-trip log
     */
    Outcome<P, C> run(List<SearchRequest> beside, @Nullable String what) {
        Outcome<P, C> out = new Outcome<>();
        long parentTotal = parentCounts.get(q.parentIndex());
        String condition = condition(q, mapper);
        // A condition that matched more parents than the preview holds a minute ago is only counted: its
        // keys would not all fit, and each key costs a doc value or, for _id, a stored-field read. Were it
        // to match fewer now, this call takes another plan (same answer) and the next one previews again.
        long lastMatched = parentCounts.matched(condition);
        int preview = lastMatched > previewKeys ? 0 : previewKeys;
        // And one that matched few parents (all in the preview) among many reads no children first: about
        // window / share of them would hold the page, so the first ones would only be read to be dropped, and
        // keys-first answers from the preview's keys in the next round trip.
        boolean probing = q.plan() != JoinQuery.Plan.AUTO
                || lastMatched < 0
                || preview == 0
                || parentTotal < 0
                || expectedReads(window, lastMatched, parentTotal) <= firstProbe;
        // With the share of matching parents known (a minute ago), read about as many children as it says hold the
        // page, with a margin, rather than the first probe's blind 4 x window: each child read is a source fetched
        // and a key checked.
        int probeSize = lastMatched >= 0 && parentTotal > 0
                ? firstProbe(window, lastMatched, parentTotal, firstProbe)
                : firstProbe;
        // A condition counted in the last minute that matched more parents than the preview holds is not counted
        // again (the preview would read no key of it): its count only weighs the plan, and the children-first answer
        // is exact whatever it is. The first round trip is then the read of children alone.
        boolean counting = preview > 0 || !probing || parentTotal < 0;
        // The start of the child order, read directly: where the last such read ended bounds this one.
        String read = probing && !side.inPit() ? childRead(q, side, mapper) : null;
        ChildOrderBounds.Bound bound = read == null ? null : bounds.get(read, probeSize);
        // When the first round trip reads children alone, the keys the last read of the same children found are
        // checked beside it (RecentKeys): asked again, the question's second round trip is then rarely needed.
        question = read == null ? null : condition + " " + q.parentKey() + " " + q.childKey() + " " + read;
        List<String> recent = question == null || counting ? null : recentKeys.get(question, probeSize);
        List<ResponseBody<JsonData>> r;
        try {
            r = firstTrip(counting, preview, probing, probeSize, parentTotal, bound, recent, beside, what);
        } catch (JoinException e) {
            if (bound == null && beside.isEmpty()) {
                throw e;
            }
            // The bound's filter and the searches beside are the only things the last such call did not send: never
            // fail a join over them.
            if (bound != null && read != null) { // a bound is looked up for a read
                bounds.turnOff(read);
                bound = null;
            }
            beside = List.of();
            r = firstTrip(counting, preview, probing, probeSize, parentTotal, null, recent, beside, what);
        }
        int answer = 0;
        ResponseBody<JsonData> keys = counting ? r.get(answer++) : null;
        List<Hit<JsonData>> children = List.of();
        if (probing) {
            ResponseBody<JsonData> probed = r.get(answer++);
            side.update(probed);
            children = probed.hits().hits();
        }
        if (parentTotal < 0) {
            parentTotal = total(r.get(answer++));
            parentCounts.put(q.parentIndex(), parentTotal);
        }
        if (!beside.isEmpty()) {
            out.beside = r.subList(r.size() - beside.size(), r.size());
        }
        if (recent != null) {
            ResponseBody<JsonData> checked = r.get(answer);
            checkedAhead = new HashSet<>(recent);
            matchingAhead = new HashMap<>();
            for (Hit<JsonData> h : checked.hits().hits()) {
                String key = Keys.of(h, q.parentKey());
                if (key != null) {
                    matchingAhead.putIfAbsent(key, searcher.sources().doc(h, q.parentType()));
                }
            }
            out.parentsRead += checked.hits().hits().size();
        }
        if (keys != null) {
            out.parentsMatched = total(keys);
            out.parentsExact =
                    keys.hits().total() != null && keys.hits().total().relation() == TotalHitsRelation.Eq;
            out.parentsRead = keys.hits().hits().size();
            parentCounts.putMatched(condition, out.parentsMatched);
        } else {
            // The count of up to a minute ago, not refreshed: the first call after the minute counts again.
            out.parentsMatched = lastMatched;
        }
        out.childrenRead = children.size();
        // A bounded read that comes back short returned the start of the child order, not all of it.
        boolean exhausted = probing && children.size() < probeSize && bound == null;
        if (read != null) {
            if (children.size() < probeSize) {
                if (bound != null) {
                    bounds.turnOff(read);
                }
            } else {
                bounds.put(read, side.sort(q), children.get(children.size() - 1).sort(), children.size());
            }
        }

        if (keys != null && out.parentsExact && out.parentsRead >= out.parentsMatched) { // exact: counted now
            // Every matching parent's key is known: the children already read are filtered for free.
            out.parents =
                    MatchingParents.of(keys.hits().hits(), Requests.previewReadsKeysOnly(q), q, searcher.sources());
            List<Match> found = keep(children, out.parents.keys);
            if (found.size() >= window || exhausted) {
                Map<String, Doc<P>> docs = out.parents.docs;
                if (out.parents.keysOnly) {
                    // Only the page's parents, and only those that match (parents may share a key).
                    docs = parents(keysOf(page(found)), "the parents of the page", out);
                }
                answer(out, found, docs, exhausted);
            } else {
                out.reason = probing
                        ? "the first " + children.size() + " children hold " + found.size() + " of the " + window
                                + " wanted"
                        : "the preview holds every key; few enough match that no children were read first";
            }
            return out;
        }

        boolean overCap = out.parentsMatched > maxParents;
        double expected = expectedReads(window, out.parentsMatched, parentTotal);
        if (q.plan() == JoinQuery.Plan.AUTO
                && !overCap
                && !childrenFirstCheaper(expected, out.parentsMatched, maxProbed)) {
            out.reason = String.format(
                    "%,d of %,d parents match: about %,.0f children would be read for %d",
                    out.parentsMatched, parentTotal, expected, window);
            return out;
        }
        probe(out, children, exhausted, overCap);
        return out;
    }

    private List<ResponseBody<JsonData>> firstTrip(
            boolean counting,
            int preview,
            boolean probing,
            int probeSize,
            long parentTotal,
            ChildOrderBounds.@Nullable Bound bound,
            @Nullable List<String> recent,
            List<SearchRequest> beside,
            @Nullable String besideWhat) {
        List<SearchRequest> first = new ArrayList<>();
        List<String> what = new ArrayList<>();
        if (counting) {
            first.add(Requests.parentKeyPreview(q, preview, maxParents + 1));
            what.add(preview > 0 ? "first " + preview + " parent keys" : "count of matching parents");
        }
        if (probing) {
            first.add(Requests.childProbe(q, side, side.after(), 0, probeSize, preference, bound));
            what.add("first " + probeSize + " children" + (bound == null ? "" : " (bounded)"));
        }
        if (parentTotal < 0) {
            first.add(Requests.countAll(q.parentIndex()));
            what.add("parent count");
        }
        if (recent != null) {
            first.add(Requests.parentsByKey(q, recent, true));
            what.add("matching parents of the last read's " + recent.size() + " keys");
        }
        if (!beside.isEmpty()) {
            first.addAll(beside);
            what.add(besideWhat != null ? besideWhat : "the searches beside");
        }
        boolean parentSide = counting || recent != null || parentTotal < 0;
        boolean childSide = probing || !beside.isEmpty();
        String index = parentSide && childSide
                ? q.parentIndex() + "," + q.childIndex()
                : childSide ? q.childIndex() : q.parentIndex();
        return run(String.join(", ", what), index, first);
    }

    /** The parent index and query, as the key of what a {@link Join} remembers of a parent condition. */
    static String condition(JoinQuery<?, ?> q, JsonpMapper mapper) {
        return q.parentIndex() + " " + JsonpUtils.toJsonString(q.parentQuery(), mapper);
    }

    /** The child index, query and sort, as the key of {@link ChildOrderBounds} (and part of {@link RecentKeys}'). */
    static String childRead(JoinQuery<?, ?> q, ChildSide side, JsonpMapper mapper) {
        return q.childIndex() + " " + (q.childQuery() == null ? "" : JsonpUtils.toJsonString(q.childQuery(), mapper))
                + " "
                + side.sort(q).stream()
                        .map(s -> JsonpUtils.toJsonString(s, mapper))
                        .toList();
    }

    /** Checks the parents of each page of children, reading further pages until the window is full. */
    private void probe(Outcome<P, C> out, List<Hit<JsonData>> page, boolean exhausted, boolean overCap) {
        List<Match> found = new ArrayList<>();
        Map<String, Doc<P>> docs = new HashMap<>();
        Set<String> seen = new HashSet<>();
        boolean firstPage = true; // the children the first round trip read
        while (true) {
            List<Hit<JsonData>> fresh = new ArrayList<>(page.size());
            for (Hit<JsonData> h : page) {
                // A child indexed between two pages shifts the order: never keep one twice.
                if (seen.add(h.index() + "/" + h.id())) {
                    fresh.add(h);
                }
            }
            Map<String, Doc<P>> matching;
            if (firstPage) {
                firstPage = false;
                Set<String> keys = keysOf(fresh);
                if (question != null) {
                    recentKeys.put(
                            question,
                            fresh.stream()
                                    .map(h -> Keys.values(h.fields(), q.childKey()))
                                    .toList());
                }
                matching = checkedAhead == null
                        ? parents(keys, "matching parents of " + fresh.size() + " children", out)
                        : fromCheckedAhead(keys, out);
            } else {
                matching = parents(keysOf(fresh), "matching parents of " + fresh.size() + " children", out);
            }
            docs.putAll(matching);
            found.addAll(keep(fresh, matching.keySet()));
            if (found.size() >= window || exhausted) {
                answer(out, found, docs, exhausted);
                return;
            }
            long next = nextPage(window, found.size(), out.childrenRead, firstProbe);
            if (out.childrenRead + next > maxProbed) {
                out.capExceeded = overCap;
                out.reason = String.format(
                        "read %,d children and found %,d of the %d wanted; reading more would pass"
                                + " maxProbedChildren %,d",
                        out.childrenRead, found.size(), window, maxProbed);
                return;
            }
            int size = (int) next;
            List<FieldValue> after =
                    page.isEmpty() ? side.after() : page.get(page.size() - 1).sort();
            ResponseBody<JsonData> r = run(
                            "next " + size + " children",
                            q.childIndex(),
                            List.of(Requests.childProbe(q, side, after, out.childrenRead, size, preference)))
                    .get(0);
            side.update(r);
            page = r.hits().hits();
            out.childrenRead += page.size();
            exhausted = page.size() < size;
        }
    }

    /**
     * How many children must be read to find {@code window} whose parent matches, if children are
     * spread over parents as evenly as the parents are: {@code window / (matched / total)}.
     */
    static double expectedReads(int window, long matchedParents, long totalParents) {
        double share = totalParents <= 0 ? 1 : Math.min(1, (double) matchedParents / totalParents);
        return window / Math.max(share, 1e-9);
    }

    /**
     * The first read of children when the share of matching parents is known: enough that the page is found in it
     * but for about one time in a hundred (the page's size plus 2.5 standard deviations of the matches' count, over
     * the share), and never more than the blind first probe. A shortfall costs another round trip, never the answer.
     */
    static int firstProbe(int window, long matchedParents, long totalParents, int blindProbe) {
        double share = Math.min(1, (double) matchedParents / totalParents);
        if (share <= 0) {
            return blindProbe;
        }
        double needed = Math.ceil((window + 2.5 * Math.sqrt(window)) / share);
        return (int) Math.min(blindProbe, Math.max(window, needed));
    }

    /**
     * Whether reading the expected children costs less than reading the matching parents' keys: a
     * child read is dearer than a key (a source, and a parent check), but the keys-first plan also
     * ships every key back in a {@code terms} query, so one for one is the break-even used.
     */
    static boolean childrenFirstCheaper(double expectedReads, long matchedParents, int maxProbed) {
        return expectedReads <= Math.min(matchedParents, maxProbed);
    }

    /**
     * The next page of children: as many as the share found so far says are still needed, with half
     * again as margin, and never fewer than the first page (a page costs a round trip).
     */
    static long nextPage(int window, int found, int read, int firstProbe) {
        double rate = Math.max(found, 1) / (double) (read + 1);
        return Math.max(firstProbe, (long) Math.ceil((window - found) / rate * 1.5));
    }

    private void answer(Outcome<P, C> out, List<Match> found, Map<String, Doc<P>> parents, boolean exhausted) {
        List<Pair<P, C>> pairs = new ArrayList<>();
        List<Match> inPage = found.subList(Math.min(side.from(), found.size()), Math.min(window, found.size()));
        if (!inPage.isEmpty()) {
            out.lastSort = inPage.get(inPage.size() - 1).child().sort();
        }
        out.more = found.size() > window || !exhausted;
        for (Match m : inPage) {
            Doc<P> parent = parents.get(m.key());
            if (parent != null) {
                // (Missing only when the parent was deleted between the two reads.)
                pairs.add(new Pair<>(parent, searcher.sources().doc(m.child(), q.childType())));
            }
        }
        out.pairs = pairs;
        out.found = found.size();
        out.childrenExhausted = exhausted;
    }

    /** The children among these whose key is one of {@code keys}, in order. */
    private List<Match> keep(List<Hit<JsonData>> children, Set<String> keys) {
        List<Match> out = new ArrayList<>();
        for (Hit<JsonData> h : children) {
            String k = Keys.firstIn(h, q.childKey(), keys);
            if (k != null) {
                out.add(new Match(h, k));
            }
        }
        return out;
    }

    private List<Hit<JsonData>> page(List<Match> found) {
        return found.subList(Math.min(side.from(), found.size()), Math.min(window, found.size())).stream()
                .map(Match::child)
                .toList();
    }

    /** The keys of these children, in order. */
    private Set<String> keysOf(List<Hit<JsonData>> children) {
        Set<String> keys = new LinkedHashSet<>();
        for (Hit<JsonData> h : children) {
            keys.addAll(Keys.values(h.fields(), q.childKey()));
        }
        return keys;
    }

    /**
     * The matching parents of these keys: those checked in the first round trip as they were checked, the others (keys
     * of children the last read did not have) in one search.
     */
    private Map<String, Doc<P>> fromCheckedAhead(Set<String> keys, Outcome<P, C> out) {
        Map<String, Doc<P>> matching = new HashMap<>();
        List<String> unchecked = new ArrayList<>();
        // Both set by the first round trip that checked the parents of recent keys, before this is asked.
        Set<String> checked = Objects.requireNonNull(checkedAhead, "no parents checked ahead");
        Map<String, Doc<P>> matchingChecked = Objects.requireNonNull(matchingAhead, "no parents checked ahead");
        for (String k : keys) {
            if (!checked.contains(k)) {
                unchecked.add(k);
            } else if (matchingChecked.containsKey(k)) {
                matching.put(k, matchingChecked.get(k));
            }
        }
        matching.putAll(parents(unchecked, "matching parents of " + unchecked.size() + " new children's keys", out));
        return matching;
    }

    /** The parents of these keys that match the parent query, in one search. */
    private Map<String, Doc<P>> parents(Collection<String> keys, String what, Outcome<P, C> out) {
        if (keys.isEmpty()) {
            return Map.of();
        }
        ParentsByKey<P> found = ParentsByKey.read(searcher, q, List.copyOf(keys), true, what, trips);
        out.parentsRead += found.read();
        return found.byKey();
    }

    private List<ResponseBody<JsonData>> run(String what, @Nullable String index, List<SearchRequest> requests) {
        try {
            return searcher.run(what, index, requests, JsonData.class, trips);
        } catch (Searcher.TermsLimitHit e) {
            throw new JoinException(what + " on [" + index + "] failed: " + e.reason, 400, e.getCause());
        }
    }

    private static long total(ResponseBody<?> r) {
        return r.hits().total() == null ? -1 : r.hits().total().value();
    }
}
