package io.github.esrel.join;

import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpMapper;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.internal.JsonTrees;

/**
 * Maps the sources of hits to the caller's types: with the client's own mapper, straight from what the client parsed,
 * or, when the entry point was given a {@link DocumentConverter} (Spring Data's, say), with that converter.
 */
final class Sources {

    private final JsonpMapper mapper;
    /** {@code null}: the client's mapper maps. */
    private final DocumentConverter converter;

    Sources(JsonpMapper mapper, DocumentConverter converter) {
        this.mapper = mapper;
        this.converter = converter;
    }

    /** The hit as a document of {@code type}; its value is {@code null} when the hit has no source. */
    <T> Doc<T> doc(Hit<JsonData> h, Class<T> type) {
        T value;
        try {
            value = h.source() == null ? null : value(h, type);
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

    private <T> T value(Hit<JsonData> h, Class<T> type) {
        if (converter == null) {
            return h.source().to(type, mapper);
        }
        JsonNode tree;
        try {
            tree = JsonTrees.parse(h.source().toJson(mapper).toString());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e.getOriginalMessage(), e);
        }
        if (!(tree instanceof ObjectNode source)) {
            throw new IllegalArgumentException("the source is not a JSON object");
        }
        return converter.read(source, type, DocMeta.of(h.index(), h.id(), h.routing()));
    }
}
