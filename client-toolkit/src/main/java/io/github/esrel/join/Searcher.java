package io.github.esrel.join;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.MsearchResponse;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.msearch.MultiSearchResponseItem;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpMappingException;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.internal.Reasons;
import io.github.esrel.internal.ShardFailures;
import io.github.esrel.retry.Failures;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Sends searches: one request as {@code _search}, several as one {@code _msearch}, so that any
 * number of terms batches costs one round trip. Counts the round trips and translates failures.
 */
final class Searcher {

    /** A batch failed because it carried more terms than the index allows; the caller re-reads the limit. */
    static final class TermsLimitHit extends RuntimeException {
        private static final long serialVersionUID = 1L;

        final String reason;

        TermsLimitHit(String reason, @Nullable Throwable cause) {
            super(reason, cause, false, false);
            this.reason = reason;
        }
    }

    private final ElasticsearchClient es;
    private final Sources sources;

    Searcher(ElasticsearchClient es) {
        this(es, null);
    }

    /** @param converter maps the sources of hits; {@code null} for the client's own mapper */
    Searcher(ElasticsearchClient es, @Nullable DocumentConverter converter) {
        this.es = es;
        this.sources = new Sources(es._jsonpMapper(), converter);
    }

    ElasticsearchClient client() {
        return es;
    }

    /** Maps the sources of the hits this searcher's searches return. */
    Sources sources() {
        return sources;
    }

    /**
     * Runs the requests in one round trip and returns their responses in order.
     *
     * @param what names the step in messages and in the round-trip log
     * @param index the index the requests search (for messages and the {@code _msearch} headers)
     * @throws TermsLimitHit if a request had more terms than {@code index.max_terms_count}
     * @throws JoinException for any other failure
     */
    <T> List<ResponseBody<T>> run(
            String what, @Nullable String index, List<SearchRequest> requests, Class<T> type, Trips trips) {
        if (sources.converts(type)) {
            // The entry point's converter maps the sources, not the client: searched as JSON, then converted.
            List<ResponseBody<JsonData>> raw = search(what, index, requests, JsonData.class, trips);
            List<ResponseBody<T>> out = new ArrayList<>(raw.size());
            for (ResponseBody<JsonData> r : raw) {
                out.add(sources.typed(r, type));
            }
            return out;
        }
        return search(what, index, requests, type, trips);
    }

    private <T> List<ResponseBody<T>> search(
            String what, @Nullable String index, List<SearchRequest> requests, Class<T> type, Trips trips) {
        if (requests.isEmpty()) {
            return List.of();
        }
        try {
            if (requests.size() == 1) {
                trips.add("search [" + index + "] " + what);
                return List.of(whole(what, index, es.search(requests.get(0), type)));
            }
            trips.add("msearch [" + index + "] " + what + " in " + requests.size() + " searches");
            MsearchResponse<T> response = es._transport()
                    .performRequest(new MultiSearch(requests), MultiSearch.endpoint(type), es._transportOptions());
            List<ResponseBody<T>> out = new ArrayList<>(requests.size());
            for (MultiSearchResponseItem<T> item : response.responses()) {
                if (item.isFailure()) {
                    String reason = Reasons.of(item.failure().error());
                    if (Errors.isTermsLimit(reason)) {
                        throw new TermsLimitHit(reason, null);
                    }
                    throw Errors.translate(what, index, item.failure().status(), reason, null);
                }
                out.add(whole(what, index, item.result()));
            }
            return out;
        } catch (ElasticsearchException e) {
            String reason = Reasons.of(e);
            if (Errors.isTermsLimit(reason)) {
                throw new TermsLimitHit(reason, e);
            }
            throw Errors.translate(what, index, e);
        } catch (JsonpMappingException e) {
            throw Errors.mapping(what, index, e);
        } catch (IOException e) {
            // The client reports a source its mapper cannot read as a transport failure.
            for (Throwable t : Failures.causes(e)) {
                if (t instanceof JsonpMappingException m) {
                    throw Errors.mapping(what, index, m);
                }
            }
            throw Errors.io(what, index, e);
        }
    }

    /**
     * The response, if every shard answered it. Elasticsearch answers a search some shards failed (a node frozen or
     * gone) with the hits of the others: a join built on it would miss parents or children without saying so.
     */
    private static <T> ResponseBody<T> whole(String what, @Nullable String index, ResponseBody<T> response) {
        String missing = ShardFailures.of(response.shards());
        if (missing != null) {
            throw new JoinException(
                    what + " on [" + index + "] failed: " + missing, ShardFailures.status(response.shards()), null);
        }
        return response;
    }

    <T> ResponseBody<T> one(String what, String index, SearchRequest request, Class<T> type, Trips trips) {
        try {
            return run(what, index, List.of(request), type, trips).get(0);
        } catch (TermsLimitHit e) {
            throw new JoinException(what + " on [" + index + "] failed: " + e.reason, 400, e.getCause());
        }
    }
}
