package io.github.esrel.occ;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.internal.DocumentMapper;
import io.github.esrel.internal.JsonTrees;

/**
 * Maps sources between Jackson trees and the caller's types with the entry point's {@link DocumentConverter},
 * compares them, and decides what a typed write stores ({@link SourceMerge}).
 */
final class Json {

    private final DocumentConverter converter;
    /** Script parameters are not documents: the client's own mapper writes them. */
    private final DocumentMapper params;

    Json(DocumentConverter converter, DocumentMapper params) {
        this.converter = converter;
        this.params = params;
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

    /**
     * What a read-modify-write stores when the stored source is {@code stored}, the class gives back {@code seen}
     * of it and the function's value writes as {@code next}: see {@link SourceMerge}.
     *
     * @throws UnmappedFieldsException if fields the class does not map cannot be kept
     */
    static ObjectNode keepUnmapped(ObjectNode stored, ObjectNode seen, ObjectNode next, DocMeta doc) {
        return SourceMerge.merge(stored, seen, next, Errors.where(doc.index(), doc.id(), doc.routing()));
    }

    /** {@code value} with the versions of the write that stored it, for the caller's outcome. */
    <T> T withMeta(T value, DocMeta meta) {
        return value == null ? null : converter.withMeta(value, meta);
    }

    /**
     * Checks that a value about to be written at {@code routing} does not declare another routing for itself.
     *
     * @throws OccException naming both values if it does
     */
    void checkRouting(Object value, String index, String id, String routing) {
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
            return params.toTree(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cannot serialize the script parameter [" + name + "]: " + e.getMessage(), e);
        }
    }

    /**
     * True when writing {@code next} would store the same JSON as {@code stored}: numbers by value (a stored
     * {@code 5} equals a {@code long} field 5 or {@code 5.0}).
     */
    static boolean sameSource(ObjectNode stored, ObjectNode next) {
        return stored.equals(JsonTrees.BY_VALUE, next);
    }
}
