package io.github.esrel.join;

import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpMapper;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.doc.internal.SourceConverter;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Maps the sources of hits to the caller's types with the entry point's {@link SourceConverter}: with the client's own
 * mapper, straight from what the client parsed, or, when the entry point was given a {@link DocumentConverter}
 * (Spring Data's, say), with that converter; and says what went wrong in the join's words.
 */
final class Sources {

    private final SourceConverter converter;

    /**
     * @param client the JSON mapper of the client the join searches with
     * @param converter the converter the entry point was given, or {@code null} for the client's mapper
     */
    Sources(JsonpMapper client, @Nullable DocumentConverter converter) {
        this.converter = SourceConverter.of(client, converter);
    }

    /**
     * Whether sources of {@code type} are mapped by the entry point's converter rather than by the client: then the
     * typed searches of a join search for JSON and convert the hits ({@link #typed}).
     */
    boolean converts(Class<?> type) {
        return converter.converts(type);
    }

    /**
     * A response whose hits hold sources of {@code type}, converted from a response of JSON sources: what the typed
     * search would have returned had the client's mapper mapped them. Keeps what the join reads of a response (the
     * hits with their index, id, score, sort values, fields, inner hits, routing and versions; the total; the point in
     * time).
     *
     * @throws JoinException if a source cannot be mapped
     */
    <T> ResponseBody<T> typed(ResponseBody<JsonData> r, Class<T> type) {
        List<Hit<T>> hits = new ArrayList<>(r.hits().hits().size());
        for (Hit<JsonData> h : r.hits().hits()) {
            T value = doc(h, type).value();
            hits.add(Hit.of(b -> {
                b.index(h.index())
                        .id(h.id())
                        .score(h.score())
                        .sort(h.sort())
                        .fields(h.fields())
                        .innerHits(h.innerHits())
                        .routing(h.routing())
                        .seqNo(h.seqNo())
                        .primaryTerm(h.primaryTerm())
                        .version(h.version());
                return value == null ? b : b.source(value);
            }));
        }
        return SearchResponse.of(b -> b.took(r.took())
                .timedOut(r.timedOut())
                .shards(r.shards())
                .pitId(r.pitId())
                .hits(m ->
                        m.total(r.hits().total()).maxScore(r.hits().maxScore()).hits(hits)));
    }

    /** The hit as a document of {@code type}; its value is {@code null} when the hit has no source. */
    <T> Doc<T> doc(Hit<JsonData> h, Class<T> type) {
        T value;
        try {
            value = h.source() == null
                    ? null
                    : converter.read(h.source(), type, DocMeta.of(h.index(), h.id(), h.routing()));
        } catch (jakarta.json.JsonException | IllegalArgumentException e) {
            // (A JsonpMappingException, or Jackson's own failure wrapped in a JsonException.)
            throw new JoinException(
                    "cannot map the source of [" + h.index() + "][" + h.id() + "] to " + type.getName() + ": "
                            + e.getMessage(),
                    0,
                    e);
        }
        return new Doc<>(h.index(), h.id(), h.score(), h.sort(), value);
    }
}
