package io.github.esrel.join;

import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The parent side of keys-first {@link Join#childrenWhereParent}: the key of every parent matching the
 * parent query (with the parents themselves, when their sources were read), or the news that more
 * parents match than the cap allows. Filled while one call reads the parent pages; not shared.
 */
final class MatchingParents<P> {

    /** Every matching parent's key, once each, in the order read. */
    final Set<String> keys = new LinkedHashSet<>();
    /** The parents by key; empty when only keys were read ({@link JoinQuery.ParentFetch#LAZY}). */
    final Map<String, Doc<P>> docs = new HashMap<>();
    /** The hits {@link #docs} were mapped from, when read as JSON ({@link #of}); else empty. */
    final Map<String, Hit<JsonData>> hits = new HashMap<>();
    /** How many parents match: exact when {@link #exact}, else a lower bound. */
    long total;

    boolean exact;
    /** Parents read, the fan-out the result reports. */
    int read;
    /** More parents match than {@link Join.Builder#maxParents(int)}: {@link #keys} is incomplete. */
    boolean exceeded;
    /** Only the keys were read ({@link #docs} is empty whatever {@link JoinQuery#parentFetch()} says). */
    boolean keysOnly;

    /**
     * Every matching parent, read in one page (the first round trip's preview): their keys, and the
     * parents themselves unless {@code keysOnly}.
     */
    static <P> MatchingParents<P> of(List<Hit<JsonData>> hits, boolean keysOnly, JoinQuery<P, ?> q, Sources sources) {
        MatchingParents<P> out = new MatchingParents<>();
        for (Hit<JsonData> h : hits) {
            out.read++;
            String key = Keys.of(h, q.parentKey());
            if (key != null && out.keys.add(key) && !keysOnly) {
                out.docs.put(key, sources.doc(h, q.parentType()));
                out.hits.put(key, h);
            }
        }
        out.total = hits.size();
        out.exact = true;
        out.keysOnly = keysOnly;
        return out;
    }

    /** Adds a page of parents (a parent without a key has no children to join). */
    void add(KeyPage<P> page) {
        for (int i = 0; i < page.size(); i++) {
            read++;
            String key = page.keys().get(i);
            if (key != null && keys.add(key) && page.docs() != null) {
                docs.put(key, page.docs().get(i));
            }
        }
    }
}
