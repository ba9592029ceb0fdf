package io.github.esrel.join;

import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Parents looked up by their keys in one search: the parents of a page of children (keys-first with
 * {@link JoinQuery.ParentFetch#LAZY}), or children-first's check of which parents match.
 *
 * @param byKey the parents found, by key (the first hit of a key when several parents share it)
 * @param read how many parents the search returned
 */
record ParentsByKey<P>(Map<String, Doc<P>> byKey, int read) {

    /**
     * Reads the parents with these keys.
     *
     * @param matching only the parents that match the parent query, else all of them
     * @param what names the step in messages and in the round-trip log
     */
    static <P> ParentsByKey<P> read(
            Searcher searcher, JoinQuery<P, ?> q, List<String> keys, boolean matching, String what, Trips trips) {
        ResponseBody<P> r =
                searcher.one(what, q.parentIndex(), Requests.parentsByKey(q, keys, matching), q.parentType(), trips);
        Map<String, Doc<P>> byKey = new HashMap<>();
        for (Hit<P> h : r.hits().hits()) {
            String key = Keys.of(h, q.parentKey());
            if (key != null) {
                byKey.putIfAbsent(key, Doc.of(h));
            }
        }
        return new ParentsByKey<>(byKey, r.hits().hits().size());
    }
}
