package io.github.esrel.join;

import co.elastic.clients.elasticsearch.core.MsearchResponse;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.msearch.MultisearchHeader;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpDeserializer;
import co.elastic.clients.json.NdJsonpSerializable;
import co.elastic.clients.transport.endpoints.SimpleEndpoint;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * An {@code _msearch} of typed searches: each search's header (its indices and preference), then the search itself as
 * the body, written once into the request by the client's mapper. The request the client's own {@code msearch} sends,
 * without its {@code RequestItem}s.
 *
 * <p>Why: a {@code RequestItem} takes a body type of its own, which the 8.x client cannot build from a
 * {@link SearchRequest} (the 9.x client can from 9.3 on). A search became an item through its JSON, written and read
 * back: with a few hundred join keys in a {@code terms} query, a round of JSON on every call that the searches' own
 * round trip did not need. A search's JSON is its body (the URL's parameters are not part of it), exactly what an
 * {@code _msearch} line holds, so the search is written as it is, on every client line from 8.15 on.
 */
final class MultiSearch implements NdJsonpSerializable {

    private static final SimpleEndpoint<MultiSearch, MsearchResponse<JsonData>> AS_JSON =
            endpoint(JsonData._DESERIALIZER);

    private final List<Object> lines;

    /** @param searches the searches, each with the indices (or point in time) it reads */
    MultiSearch(List<SearchRequest> searches) {
        this.lines = new ArrayList<>(2 * searches.size());
        for (SearchRequest search : searches) {
            lines.add(header(search));
            lines.add(search);
        }
    }

    @Override
    public Iterator<?> _serializables() {
        return lines.iterator();
    }

    /** The endpoint that sends a multi-search and reads its hits' sources as {@code type}. */
    @SuppressWarnings("unchecked")
    static <T> SimpleEndpoint<MultiSearch, MsearchResponse<T>> endpoint(Class<T> type) {
        return type == JsonData.class
                ? (SimpleEndpoint<MultiSearch, MsearchResponse<T>>) (Object) AS_JSON
                : endpoint(JsonpDeserializer.of(type));
    }

    private static <T> SimpleEndpoint<MultiSearch, MsearchResponse<T>> endpoint(JsonpDeserializer<T> sources) {
        return new SimpleEndpoint<>(
                "msearch",
                m -> "POST",
                m -> "/_msearch",
                m -> Map.of(),
                // Aggregations are read by their type, as the client's msearch reads them.
                m -> Map.of("typed_keys", "true"),
                m -> Map.of(),
                m -> m,
                MsearchResponse.createMsearchResponseDeserializer(sources));
    }

    /** The search's indices, one by one, and its preference: the parts of a search that are not in its body. */
    private static MultisearchHeader header(SearchRequest search) {
        return MultisearchHeader.of(h -> {
            // A header lists its indices one by one: "a,b" as one name would be looked up as such.
            List<String> indices = new ArrayList<>();
            for (String names : search.index()) {
                indices.addAll(List.of(names.split(",")));
            }
            h.index(indices);
            if (search.preference() != null) {
                h.preference(search.preference());
            }
            return h;
        });
    }
}
