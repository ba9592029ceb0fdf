package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.aggregations.Aggregate;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The parents on the page of a keys-first answer, as read, and what tells whether they are still so: for the same
 * question asked again ({@link KeysFirst#joinIfStillMatching}).
 *
 * <p>Why: asked again, keys-first checks its keys and reads their children in one {@code _msearch}, and used to read
 * the last page's parents in a third search beside them. On a small node each search of an {@code _msearch} costs
 * about as much as any other, whatever its work (Elasticsearch's hand-offs between its threads), so the third search
 * was a third of the round trip. It is not needed to know whether those parents changed: a shard numbers its writes in
 * order, and a document written again takes the new number as its {@code _seq_no}, so the same documents, in the same
 * indices, carrying the same {@code _seq_no} are the same documents as read. The check counts them and sums their
 * {@code _seq_no} ({@link Requests#keysStillMatch}); when both agree the parents are those read last time, mapped
 * again for this answer. When they do not, the parents of the page are read in a second round trip, and the next time
 * the question is asked they are read beside the check again ({@link #changed}), until they hold still. Nothing is
 * taken on trust: the check runs now, against the parents as they are now.
 *
 * @param keys the keys of the parents on the page, in page order
 * @param hits each key's parent as read (with its {@code _seq_no}); {@code null} when not every one is known so
 * @param seqNoSum the sum of the parents' {@code _seq_no}
 * @param changed whether the parents had changed when last checked: read them beside the check next time
 */
record PageParents(List<String> keys, @Nullable Map<String, Hit<JsonData>> hits, long seqNoSum, boolean changed) {

    /** The most parents on a page kept as read: more are only kept by key (their sources are not held). */
    static final int MAX_PARENTS = 100;

    /** A {@code _seq_no} sum a {@code double} (the sum aggregation's value) holds exactly. */
    private static final long EXACT = 1L << 53;

    static final PageParents NONE = new PageParents(List.of(), null, 0, false);

    PageParents {
        keys = List.copyOf(keys);
        hits = hits == null ? null : Map.copyOf(hits);
    }

    /**
     * The parents on a page: as read when {@code read} holds each key's parent with its {@code _seq_no}, else by key
     * alone.
     */
    static PageParents of(Collection<String> keys, Map<String, Hit<JsonData>> read, boolean changed) {
        if (keys.isEmpty() || keys.size() > MAX_PARENTS) {
            return new PageParents(List.copyOf(keys), null, 0, changed);
        }
        Map<String, Hit<JsonData>> hits = new LinkedHashMap<>();
        long sum = 0;
        for (String k : keys) {
            Hit<JsonData> h = read.get(k);
            if (h == null || h.seqNo() == null || h.seqNo() < 0) {
                return new PageParents(List.copyOf(keys), null, 0, changed);
            }
            hits.put(k, h);
            sum += h.seqNo();
        }
        return sum >= EXACT
                ? new PageParents(List.copyOf(keys), null, 0, changed)
                : new PageParents(List.copyOf(keys), hits, sum, changed);
    }

    /** Whether the check can tell that these parents are unchanged, so that they need not be read. */
    boolean checkable() {
        return hits != null && !changed;
    }

    /** The concrete indices the parents were read from. */
    Set<String> indices() {
        Set<String> out = new TreeSet<>();
        // Asked of a checkable page only, which has its parents.
        Objects.requireNonNull(hits, "no parents read").values().forEach(h -> out.add(h.index()));
        return out;
    }

    /**
     * Whether the check's aggregation ({@link Requests#PAGE_PARENTS}) found the same parents as read: as many
     * documents with these keys in these indices, with the same sum of {@code _seq_no}.
     */
    boolean unchanged(@Nullable Aggregate pageParents) {
        if (pageParents == null || !pageParents.isFilter()) {
            return false;
        }
        Aggregate sum = pageParents.filter().aggregations().get(Requests.SEQ_NO_SUM);
        return pageParents.filter().docCount()
                        == Objects.requireNonNull(hits, "no parents read").size()
                && sum != null
                && sum.isSum()
                && sum.sum().value() == seqNoSum;
    }

    /** Whether parents read now are those read last time: the same documents with the same {@code _seq_no}. */
    boolean sameAs(Map<String, Hit<JsonData>> now) {
        if (hits == null) {
            return false;
        }
        for (Map.Entry<String, Hit<JsonData>> e : hits.entrySet()) {
            Hit<JsonData> h = now.get(e.getKey());
            if (h == null
                    || !h.index().equals(e.getValue().index())
                    || !Objects.equals(h.seqNo(), e.getValue().seqNo())) {
                return false;
            }
        }
        return true;
    }
}
