package io.github.esrel.join;

import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Searches the child side for many parent keys: one search per batch of keys, all batches in one
 * round trip ({@code _msearch}), so that any number of keys costs one round trip.
 *
 * <p>A batch holds at most the child index's {@code index.max_terms_count} keys ({@link TermsLimits}):
 * assumed to be Elasticsearch's default until a join has more keys than that, then read from the
 * index settings. When the cluster rejects a batch because the limit is lower than believed (it is a
 * dynamic setting), the limit is read again and the batches are sent again, once. Thread-safe: the
 * limits are the only state, shared by every call of one {@link Join}.
 */
final class TermsBatches {

    /**
     * The answers of one run.
     *
     * @param responses one per batch, in batch order
     * @param batches how many batches the keys were split into
     * @param limit the most keys per batch the run used ({@code index.max_terms_count} as known then)
     * @param alongside the answers of the searches sent along with the batches, in their order
     */
    record Answers<T>(List<ResponseBody<T>> responses, int batches, int limit, List<ResponseBody<T>> alongside) {}

    private final Searcher searcher;
    private final TermsLimits limits;

    TermsBatches(Searcher searcher, TermsLimits limits) {
        this.searcher = searcher;
        this.limits = limits;
    }

    /** The {@code index.max_terms_count} of {@code index} as known now (the default until read). */
    int limit(String index) {
        return limits.current(index);
    }

    /**
     * Sends one search per batch of keys, in one round trip.
     *
     * @param index the child index the searches read
     * @param keys the parent keys, in the order batches take them
     * @param cap the most keys per batch whatever the limit (a search's own bound, such as the groups
     *     one collapse may return)
     * @param request the search of one batch of keys
     * @param alongside searches to send in the same round trip, after the batches (another index's
     *     searches too: a join's parents next to their children)
     * @param what names the step in messages and in the round-trip log
     * @throws JoinException if a batch is rejected again after the limit was read, or the limit was
     *     fixed by {@link Join.Builder#maxTermsCount(int)}; for any other failure
     */
    <T> Answers<T> run(
            String index,
            List<String> keys,
            int cap,
            Function<List<String>, SearchRequest> request,
            List<SearchRequest> alongside,
            Class<T> type,
            Trips trips,
            String what) {
        int limit = limits.current(index);
        if (!limits.isKnown(index) && keys.size() > Math.min(limit, cap)) {
            limit = limits.read(searcher.client(), index, trips, null);
        }
        for (int attempt = 1; ; attempt++) {
            int batchSize = Math.min(limit, cap);
            List<List<String>> batches = Keys.batches(keys, batchSize);
            List<SearchRequest> requests = new ArrayList<>(batches.size());
            for (List<String> b : batches) {
                requests.add(request.apply(b));
            }
            requests.addAll(alongside);
            try {
                List<ResponseBody<T>> all = searcher.run(what, index, requests, type, trips);
                int n = batches.size();
                return new Answers<>(all.subList(0, n), n, limit, all.subList(n, all.size()));
            } catch (Searcher.TermsLimitHit e) {
                if (limits.isFixed() || attempt > 1) {
                    throw new JoinException(
                            "searching [" + index + "] for " + what + " failed: " + e.reason
                                    + (limits.isFixed()
                                            ? " (this Join was built with maxTermsCount " + limit
                                                    + ": lower it or leave it"
                                                    + " unset so that esrel reads the index setting)"
                                            : ""),
                            400,
                            e.getCause());
                }
                int reread = limits.read(searcher.client(), index, trips, e.reason);
                if (reread >= batchSize) {
                    throw new JoinException(
                            "searching [" + index + "] for " + what + " failed although batches hold " + batchSize
                                    + " keys and index.max_terms_count reads " + reread + ": " + e.reason,
                            400,
                            e.getCause());
                }
                limit = reread;
            }
        }
    }
}
