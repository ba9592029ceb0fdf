package io.github.esrel.occ;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.DocumentMapper;
import io.github.esrel.internal.JsonTrees;

/** Maps sources between Jackson trees and the caller's types with the client's mapper, and compares them. */
final class Json {

    private final DocumentMapper mapper;

    Json(DocumentMapper mapper) {
        this.mapper = mapper;
    }

    <T> T toValue(ObjectNode source, Class<T> type, String index, String id) {
        try {
            return mapper.toValue(source, type);
        } catch (IllegalArgumentException e) {
            throw new OccException(
                    "cannot map the source of [" + index + "][" + id + "] to " + type.getName() + ": " + e.getMessage(),
                    0,
                    e);
        }
    }

    ObjectNode toTree(Object value, String index, String id) {
        JsonNode tree;
        try {
            tree = mapper.toTree(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cannot serialize the new value of [" + index + "][" + id + "]: " + e.getMessage(), e);
        }
        if (!(tree instanceof ObjectNode)) {
            throw new IllegalArgumentException(
                    "the new value of [" + index + "][" + id + "] must serialize to a JSON object, got "
                            + tree.getNodeType() + " from " + value.getClass().getName());
        }
        return (ObjectNode) tree;
    }

    /** A script parameter as the client's mapper writes it, for the request esrel sends with its own. */
    JsonNode toParam(Object value, String name) {
        try {
            return mapper.toTree(value);
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
