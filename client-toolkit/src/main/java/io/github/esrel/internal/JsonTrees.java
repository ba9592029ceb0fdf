package io.github.esrel.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Dotted paths into Jackson object trees ({@code "user.name"}), and value comparison with numbers by
 * value. Shared by {@code denorm} and {@code view}, which address the fields of stored sources the same way.
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
public final class JsonTrees {

    /**
     * JSON values compared as Elasticsearch stores them: numbers by value ({@code 1}, {@code 1.0} and {@code 1e0}
     * are equal), everything else by {@link JsonNode#equals(Object)}. For {@link JsonNode#equals(Comparator, JsonNode)},
     * which asks only for 0 (equal) or not; not an ordering to sort with.
     */
    public static final Comparator<JsonNode> BY_VALUE = (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
    };

    private static final ObjectMapper TREES = new ObjectMapper();

    private JsonTrees() {}

    /**
     * The value at {@code path}, or {@code null} when a step is missing or not an object. A literal key
     * with dots ({@code "user.name": ...}) is found too, at any level.
     */
    public static @Nullable JsonNode get(JsonNode root, String path) {
        if (root == null || !root.isObject()) {
            return null;
        }
        JsonNode whole = root.get(path);
        if (whole != null) {
            return whole;
        }
        int dot = path.indexOf('.');
        while (dot > 0) {
            JsonNode head = root.get(path.substring(0, dot));
            if (head != null && head.isObject()) {
                JsonNode found = get(head, path.substring(dot + 1));
                if (found != null) {
                    return found;
                }
            }
            dot = path.indexOf('.', dot + 1);
        }
        return null;
    }

    /**
     * Sets {@code path} to a copy of {@code value} ({@code null} sets a JSON null), creating the missing
     * intermediate objects and replacing intermediate JSON nulls by objects.
     *
     * @throws IllegalArgumentException if a step exists and is neither an object nor null; the message
     *     names the path, the step and what it holds
     */
    public static void set(ObjectNode root, String path, @Nullable JsonNode value) {
        String[] steps = path.split("\\.");
        ObjectNode at = root;
        for (int i = 0; i < steps.length - 1; i++) {
            JsonNode next = at.get(steps[i]);
            if (next == null || next.isNull()) {
                at = at.putObject(steps[i]);
            } else if (next.isObject()) {
                at = (ObjectNode) next;
            } else {
                throw new IllegalArgumentException(
                        "cannot set [" + path + "]: [" + String.join(".", Arrays.copyOf(steps, i + 1)) + "] is "
                                + next.getNodeType().name().toLowerCase(Locale.ROOT) + ", not an object");
            }
        }
        at.set(steps[steps.length - 1], value == null ? NullNode.getInstance() : value.deepCopy());
    }

    /**
     * Removes the value at {@code path} if present: the literal key {@code path} first, else the nested
     * one. Intermediate objects stay, even when they become empty.
     */
    public static void remove(ObjectNode root, String path) {
        if (root.remove(path) != null) {
            return;
        }
        String[] steps = path.split("\\.");
        JsonNode at = root;
        for (int i = 0; i < steps.length - 1; i++) {
            at = at.get(steps[i]);
            if (at == null || !at.isObject()) {
                return;
            }
        }
        ((ObjectNode) at).remove(steps[steps.length - 1]);
    }

    /** Equal JSON, numbers by value; {@code null}, a JSON null and a missing value are all equal. */
    public static boolean same(@Nullable JsonNode a, @Nullable JsonNode b) {
        boolean aMissing = a == null || a.isNull() || a.isMissingNode();
        boolean bMissing = b == null || b.isNull() || b.isMissingNode();
        if (a == null || b == null || aMissing || bMissing) { // a null one is missing
            return aMissing && bMissing;
        }
        return a.equals(BY_VALUE, b);
    }

    /** The id a field holds, as text: a string or a number ({@code 7} is {@code "7"}); {@code null} otherwise. */
    public static @Nullable String idText(@Nullable JsonNode node) {
        if (node == null || !(node.isTextual() || node.isNumber())) {
            return null;
        }
        return node.asText();
    }

    /** The number {@code node} holds as a long, or {@code fallback} when it is missing or not a number. */
    public static long longOr(JsonNode node, long fallback) {
        return node != null && node.isNumber() ? node.asLong() : fallback;
    }

    /**
     * Parses JSON text into a tree: for JSON that reached esrel through a mapper other than Jackson 2's. Trees need
     * no mapper configuration, so one plain mapper serves every caller.
     *
     * @throws JsonProcessingException if {@code text} is not JSON
     */
    public static JsonNode parse(String text) throws JsonProcessingException {
        return TREES.readTree(text);
    }

    /** A new empty object node. */
    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }
}
