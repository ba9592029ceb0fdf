package io.github.esrel.occ;

import co.elastic.clients.json.JsonpMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.doc.internal.SourceConverter;
import org.jspecify.annotations.Nullable;

/**
 * Maps sources between Jackson trees and the caller's types with the entry point's {@link SourceConverter}, and says
 * what went wrong in OCC's words: the document, the type, and the fix.
 */
final class Json {

    private final SourceConverter converter;

    /**
     * @param client the JSON mapper of the application's client
     * @param converter the {@link DocumentConverter} the entry point was given, or {@code null} for the client's mapper
     */
    Json(JsonpMapper client, @Nullable DocumentConverter converter) {
        this.converter = SourceConverter.of(client, converter);
    }

    /** Maps a stored source to the caller's type. */
    <T> T toValue(ObjectNode source, Class<T> type, DocMeta meta) {
        try {
            return converter.read(source, type, meta);
        } catch (IllegalArgumentException e) {
            throw new OccException(
                    "cannot map the source of " + Errors.where(meta.index(), meta.id(), meta.routing()) + " to "
                            + type.getName() + ": " + e.getMessage() + (unknownField(e) ? UNKNOWN_FIELD_HINT : ""),
                    0,
                    e);
        }
    }

    private static final String UNKNOWN_FIELD_HINT = ". The mapper refuses fields the class does not map; nothing was"
            + " written. esrel keeps such fields as stored when the class may ignore them: annotate it with"
            + " @JsonIgnoreProperties(ignoreUnknown = true), or turn FAIL_ON_UNKNOWN_PROPERTIES off in the client's mapper";

    /** Whether Jackson (2 or 3) refused a field the class does not map. */
    private static boolean unknownField(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getClass().getSimpleName().equals("UnrecognizedPropertyException")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The source of a value the caller's function (or the caller) made.
     *
     * @throws IllegalArgumentException if it cannot be written, or not as a JSON object
     */
    ObjectNode toTree(Object value, String index, String id) {
        try {
            return converter.write(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cannot serialize the new value of [" + index + "][" + id + "]: " + e.getMessage(), e);
        }
    }

    /** {@code value} with the versions of the write that stored it, for the caller's outcome. */
    <T> @Nullable T withMeta(@Nullable T value, DocMeta meta) {
        return converter.withMeta(value, meta);
    }

    /**
     * Checks that a value about to be written at {@code routing} does not declare another routing for itself.
     *
     * @throws OccException naming both values if it does
     */
    void checkRouting(Object value, String index, String id, @Nullable String routing) {
        String declared = converter.routing(value);
        if (declared != null && !declared.isEmpty() && !declared.equals(routing)) {
            throw new OccException(
                    "refused to write " + Errors.where(index, id, routing) + ": the value declares the routing ["
                            + declared + "] (" + value.getClass().getName() + "), which would put it on another shard"
                            + " than the copy read; address the document with DocRef.of(index, id).withRouting(\""
                            + declared + "\")",
                    0,
                    null);
        }
    }

    /** A script parameter as the client's mapper writes it, for the request esrel sends with its own. */
    JsonNode toParam(Object value, String name) {
        try {
            return converter.toTree(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cannot serialize the script parameter [" + name + "]: " + e.getMessage(), e);
        }
    }
}
