package io.github.esrel.occ;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.internal.JsonTrees;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a typed read-modify-write stores: the stored source with the function's changes applied to it, so that
 * nothing the caller's class does not map is lost. Pure, no requests.
 *
 * <p>Three trees take part: {@code stored}, the source as read; {@code seen}, what the class gives back of it (the
 * stored source mapped to the class and written again, <em>before</em> the function runs, which may change its
 * argument); {@code next}, what the function returned, written. A field is the class's when {@code seen} has it.
 * Field by field, at every level of objects:
 * <ul>
 *   <li>in {@code next} and equal in {@code seen} (the function left it alone): the stored JSON, exactly as stored
 *       (its date format, its number form, the fields of its own the class does not map);</li>
 *   <li>in {@code next} and changed: {@code next}'s value; where the stored, seen and next values are all objects,
 *       merged the same way one level down; arrays as below;</li>
 *   <li>in {@code seen} but not in {@code next}: the function cleared it; removed;</li>
 *   <li>in {@code next} but not stored: written, unless {@code seen} has it equal (the class writes a null or a
 *       default for a field the document does not have, and the function left it so);</li>
 *   <li>in neither (the class does not map it: another service's field, {@code _class}, what a lenient mapper
 *       dropped): kept as stored.</li>
 * </ul>
 * An array the function changed is taken from {@code next} when the class maps its stored elements whole. When it
 * does not (objects with fields of their own), each returned element is matched to a stored one: an equal one
 * first; in a grown array, a changed element at the position of an unmatched stored one while every element before
 * it kept its position (edited in place, then others appended); then, when as many elements were changed as there
 * are unmatched stored ones, the unmatched in order (edited in place). A matched element keeps its stored fields as above; an unmatched stored element
 * was removed; an unmatched returned one is new. When changed elements meet a different number of unmatched
 * stored elements that hold fields of their own, nothing can tell whose fields are whose: the write is refused
 * with {@link UnmappedFieldsException}.
 */
final class SourceMerge {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private SourceMerge() {}

    /**
     * True when writing {@code next} would store the same JSON as {@code stored}: numbers by value (a stored
     * {@code 5} equals a {@code long} field 5 or {@code 5.0}).
     */
    static boolean sameSource(ObjectNode stored, ObjectNode next) {
        return stored.equals(JsonTrees.BY_VALUE, next);
    }

    /**
     * Whether {@code seen} holds everything {@code stored} does (numbers by value): then the class maps the whole
     * source, and the function's value is what to store.
     */
    static boolean mapsWhole(ObjectNode stored, ObjectNode seen) {
        return sameSource(stored, seen);
    }

    /**
     * The source to store for the document {@code doc} (see {@link #merge(ObjectNode, ObjectNode, ObjectNode,
     * String)}).
     *
     * @throws UnmappedFieldsException if an array's fields of its own cannot be kept (see the class comment)
     */
    static ObjectNode merge(ObjectNode stored, ObjectNode seen, ObjectNode next, DocMeta doc) {
        return merge(stored, seen, next, Errors.where(doc.index(), doc.id(), doc.routing()));
    }

    /**
     * The source to store.
     *
     * @param where names the document in the refusal's message
     * @throws UnmappedFieldsException if an array's fields of its own cannot be kept (see the class comment)
     */
    static ObjectNode merge(ObjectNode stored, ObjectNode seen, ObjectNode next, String where) {
        if (mapsWhole(stored, seen)) {
            return next;
        }
        return object(stored, seen, next, new Path(where));
    }

    private static ObjectNode object(ObjectNode stored, @Nullable ObjectNode seen, ObjectNode next, Path path) {
        ObjectNode out = NODES.objectNode();
        for (Map.Entry<String, JsonNode> e : stored.properties()) {
            String key = e.getKey();
            JsonNode s = e.getValue();
            JsonNode n = next.get(key);
            JsonNode o = seen == null ? null : seen.get(key);
            if (n == null) {
                if (o == null) {
                    out.set(key, s); // not the class's: kept
                } // else: the function cleared it
            } else if (o != null && JsonTrees.same(o, n)) {
                out.set(key, s); // the function left it alone: as stored
            } else {
                out.set(key, value(s, o, n, path.field(key)));
            }
        }
        for (Map.Entry<String, JsonNode> e : next.properties()) {
            String key = e.getKey();
            JsonNode o = seen == null ? null : seen.get(key);
            // New to the stored source: written unless the function left it as the class writes it (a null or a
            // default for a field the stored source does not have is not a change).
            if (!stored.has(key) && (o == null || !JsonTrees.same(o, e.getValue()))) {
                out.set(key, e.getValue());
            }
        }
        return out;
    }

    /** A value the function changed (or the class writes without having read it). */
    private static JsonNode value(JsonNode stored, @Nullable JsonNode seen, JsonNode next, Path path) {
        if (stored.isObject() && next.isObject()) {
            return object(
                    (ObjectNode) stored,
                    seen != null && seen.isObject() ? (ObjectNode) seen : null,
                    (ObjectNode) next,
                    path);
        }
        if (stored.isArray() && next.isArray() && seen != null && seen.isArray()) {
            return array((ArrayNode) stored, (ArrayNode) seen, (ArrayNode) next, path);
        }
        return next;
    }

    private static JsonNode array(ArrayNode stored, ArrayNode seen, ArrayNode next, Path path) {
        if (JsonTrees.same(stored, seen)) {
            return next; // the class maps the stored elements whole
        }
        if (stored.size() != seen.size()) {
            throw refused(
                    path,
                    "the class maps " + seen.size() + " of its " + stored.size() + " stored elements, so they cannot"
                            + " be told apart");
        }
        int size = next.size();
        int[] matchOf = new int[size]; // for each returned element, the stored one it is (-1: none yet)
        boolean[] taken = new boolean[seen.size()];
        for (int j = 0; j < size; j++) {
            matchOf[j] = -1;
            if (j < seen.size() && !taken[j] && JsonTrees.same(seen.get(j), next.get(j))) {
                matchOf[j] = j;
                taken[j] = true;
            }
        }
        for (int j = 0; j < size; j++) {
            if (matchOf[j] >= 0) {
                continue;
            }
            for (int i = 0; i < seen.size(); i++) {
                if (!taken[i] && JsonTrees.same(seen.get(i), next.get(j))) {
                    matchOf[j] = i;
                    taken[i] = true;
                    break;
                }
            }
        }
        if (size > seen.size()) {
            // Grown: elements edited in place before the new ones keep their positions (edit one, append one).
            for (int j = 0; j < seen.size(); j++) {
                if (matchOf[j] < 0 && !taken[j]) {
                    matchOf[j] = j;
                    taken[j] = true;
                } else if (matchOf[j] != j) {
                    break;
                }
            }
        }
        List<Integer> changed = new ArrayList<>();
        for (int j = 0; j < size; j++) {
            if (matchOf[j] < 0) {
                changed.add(j);
            }
        }
        List<Integer> unmatched = new ArrayList<>();
        boolean unmatchedHoldOwnFields = false;
        for (int i = 0; i < seen.size(); i++) {
            if (!taken[i]) {
                unmatched.add(i);
                unmatchedHoldOwnFields |= !JsonTrees.same(stored.get(i), seen.get(i));
            }
        }
        if (!changed.isEmpty() && unmatchedHoldOwnFields) {
            if (changed.size() != unmatched.size()) {
                throw refused(
                        path,
                        "the function changed " + changed.size() + " of its elements while " + unmatched.size()
                                + " stored ones are gone, so their fields cannot be matched");
            }
            for (int k = 0; k < changed.size(); k++) {
                matchOf[changed.get(k)] = unmatched.get(k); // edited in place, in order
            }
        }
        ArrayNode out = NODES.arrayNode(size);
        for (int j = 0; j < size; j++) {
            int i = matchOf[j];
            JsonNode n = next.get(j);
            if (i < 0) {
                out.add(n);
            } else if (JsonTrees.same(seen.get(i), n)) {
                out.add(stored.get(i));
            } else {
                out.add(value(stored.get(i), seen.get(i), n, path.element(i)));
            }
        }
        return out;
    }

    private static UnmappedFieldsException refused(Path path, String why) {
        return new UnmappedFieldsException(
                "refused to write " + path.where + ": its stored array [" + path + "] has fields the class does not"
                        + " map, and " + why + "; nothing was written. Map the elements' fields in the class (or keep"
                        + " them with @JsonAnySetter and @JsonAnyGetter), or change the array by editing, appending"
                        + " or removing elements",
                path.toString());
    }

    /** Where in the source the merge is, for messages: {@code comments[2].likes}. */
    private record Path(
            String where, @Nullable Path parent, @Nullable String name, int index) {
        Path(String where) {
            this(where, null, null, -1);
        }

        Path field(String key) {
            return new Path(where, this, key, -1);
        }

        Path element(int i) {
            return new Path(where, this, null, i);
        }

        @Override
        public String toString() {
            if (parent == null) {
                return "";
            }
            String up = parent.toString();
            if (name == null) {
                return up + "[" + index + "]";
            }
            return up.isEmpty() ? name : up + "." + name;
        }
    }
}
