package io.github.esrel.join;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import co.elastic.clients.elasticsearch.core.search.TotalHitsRelation;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.internal.RestCall;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One page of the parent side of {@link Join#childrenWhereParent}: the parents' keys (and, when
 * fetched eagerly, the parents), the sort values to continue after, and the count of matches.
 *
 * @param keys one key per hit, in hit order ({@code null} for a hit without a value)
 * @param docs the parents, parallel to {@code keys}; {@code null} when only keys were read
 */
record KeyPage<P>(
        List<@Nullable String> keys,
        @Nullable List<Doc<P>> docs,
        List<FieldValue> lastSort,
        long total,
        boolean exact,
        @Nullable String pitId) {

    /**
     * What a keys-only page keeps of the answer: the rest (index names, scores, shard info) is
     * dropped by the server, so that reading 10,000 keys moves and parses a few hundred kilobytes.
     */
    static final String KEYS_ONLY = "hits.total,hits.hits._id,hits.hits.fields,hits.hits.sort,pit_id";

    int size() {
        return keys.size();
    }

    /** Reads a page with the typed client, sources mapped to {@code P}. */
    static <P> KeyPage<P> typed(
            Searcher searcher, String what, String index, SearchRequest request, JoinQuery<P, ?> q, Trips trips) {
        ResponseBody<P> r = searcher.one(what, index, request, q.parentType(), trips);
        List<String> keys = new ArrayList<>(r.hits().hits().size());
        List<Doc<P>> docs = new ArrayList<>(r.hits().hits().size());
        for (Hit<P> h : r.hits().hits()) {
            keys.add(Keys.of(h, q.parentKey()));
            docs.add(Doc.of(h));
        }
        List<Hit<P>> hits = r.hits().hits();
        return new KeyPage<>(
                keys,
                docs,
                hits.isEmpty() ? List.of() : hits.get(hits.size() - 1).sort(),
                r.hits().total() == null ? -1 : r.hits().total().value(),
                r.hits().total() != null && r.hits().total().relation() == TotalHitsRelation.Eq,
                r.pitId());
    }

    /**
     * Reads a keys-only page through the client's transport with {@code filter_path}, parsing the
     * small answer as a tree instead of typed hits.
     */
    static <P> KeyPage<P> keysOnly(
            ElasticsearchClient es, String what, String index, SearchRequest request, String keyField, Trips trips) {
        String path = request.pit() != null ? "/_search" : "/" + RestCall.segment(index) + "/_search";
        trips.add("search [" + index + "] " + what);
        JsonNode answer;
        try {
            answer = RestCall.postRead(path, Map.of("filter_path", KEYS_ONLY), request)
                    .sendForTree(es);
        } catch (ElasticsearchException e) {
            throw Errors.translate(what, index, e);
        } catch (IOException | RuntimeException e) {
            throw Errors.io(what, index, e instanceof IOException io ? io : new IOException(e));
        }
        JsonNode hits = answer.path("hits").path("hits");
        List<String> keys = new ArrayList<>(hits.size());
        boolean byId = JoinQuery.ID.equals(keyField);
        for (JsonNode hit : hits) {
            JsonNode v =
                    byId ? hit.get("_id") : hit.path("fields").path(keyField).path(0);
            keys.add(v == null || v.isMissingNode() || v.isNull() ? null : text(v));
        }
        List<FieldValue> lastSort = new ArrayList<>();
        if (!hits.isEmpty()) {
            for (JsonNode v : hits.get(hits.size() - 1).path("sort")) {
                lastSort.add(
                        v.isNull()
                                ? FieldValue.NULL
                                : v.isIntegralNumber()
                                        ? FieldValue.of(v.longValue())
                                        : v.isNumber()
                                                ? FieldValue.of(v.doubleValue())
                                                : v.isBoolean()
                                                        ? FieldValue.of(v.booleanValue())
                                                        : FieldValue.of(v.asText()));
            }
        }
        JsonNode total = answer.path("hits").path("total");
        JsonNode pit = answer.get("pit_id");
        return new KeyPage<>(
                keys,
                null,
                lastSort,
                total.path("value").asLong(-1),
                "eq".equals(total.path("relation").asText()),
                pit == null ? null : pit.asText());
    }

    private static String text(JsonNode v) {
        return v.isNumber() ? Keys.number(v.decimalValue()) : v.asText();
    }
}
