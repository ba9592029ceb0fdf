package io.github.esrel.occ;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.JsonTrees;

/** Maps sources between Jackson trees and the caller's types, and compares them. */
final class Json {

    private final ObjectMapper mapper;

    Json(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    <T> T toValue(ObjectNode source, Class<T> type, String index, String id) {
        try {
            return mapper.treeToValue(source, type);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new OccException(
                    "cannot map the source of [" + index + "][" + id + "] to " + type.getName() + ": "
                            + originalMessage(e),
                    0,
                    e);
        }
    }

    ObjectNode toTree(Object value, String index, String id) {
        JsonNode tree;
        try {
            tree = mapper.valueToTree(value);
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

    /**
     * True when writing {@code next} would store the same JSON as {@code stored}: numbers by value (a stored
     * {@code 5} equals a {@code long} field 5 or {@code 5.0}).
     */
    static boolean sameSource(ObjectNode stored, ObjectNode next) {
        return stored.equals(JsonTrees.BY_VALUE, next);
    }

    private static String originalMessage(Exception e) {
        return e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
    }
}
