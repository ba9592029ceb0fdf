package io.github.esrel.view;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Dotted paths into Jackson trees. */
final class ViewJson {

    private ViewJson() {}

    /** The value at {@code path} (a literal dotted key is found too), or {@code null}. */
    static JsonNode get(JsonNode root, String path) {
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

    /** A string or number as text, else {@code null}. */
    static String idText(JsonNode node) {
        if (node == null || !(node.isTextual() || node.isNumber())) {
            return null;
        }
        return node.asText();
    }

    /**
     * Sets {@code path} to a copy of {@code value}, creating intermediate objects.
     *
     * @throws IllegalArgumentException if a step exists and is not an object
     */
    static void set(ObjectNode root, String path, JsonNode value) {
        String[] steps = path.split("\\.");
        ObjectNode at = root;
        for (int i = 0; i < steps.length - 1; i++) {
            JsonNode next = at.get(steps[i]);
            if (next == null || next.isNull()) {
                at = at.putObject(steps[i]);
            } else if (next.isObject()) {
                at = (ObjectNode) next;
            } else {
                throw new IllegalArgumentException("cannot set [" + path + "]: [" + steps[i] + "] is not an object");
            }
        }
        at.set(steps[steps.length - 1], value.deepCopy());
    }

    /** Removes the value at {@code path} if present. */
    static void remove(ObjectNode root, String path) {
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

    static long longOr(JsonNode node, long fallback) {
        return node != null && node.isNumber() ? node.asLong() : fallback;
    }
}
