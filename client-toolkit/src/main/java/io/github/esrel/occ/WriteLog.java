package io.github.esrel.occ;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The write log ({@link Occ.Builder#writeLog}): a field of the document holding its last {@value #SIZE} conditional
 * writes by esrel, each as the version it was written on and a random id:
 *
 * <pre>{@code
 * "_esrel_writes": [ {"on": "1:41", "id": "9f3c0a7e5b2d4c11"}, {"on": "1:42", "id": "04b1e6d2c8a9f735"} ]
 * }</pre>
 *
 * <p>Why it tells a replayed write from another writer's: a write conditional on version {@code on} (primary term and
 * seq_no) succeeds for at most one writer, so at most one entry names {@code on}. After a conflict, the document as
 * read then holds the entry for {@code on} if a write on it succeeded, unless {@value #SIZE} or more writes followed,
 * or a writer without the log replaced the field. The entry's id is ours: our write was applied (a replay conflicted
 * with it); another id: it was not, and trying again is safe; no entry: it cannot be told, and the outcome is unknown.
 * A create is written "on" {@code new}: two creates of one document cannot both succeed either.
 *
 * <p>Pure, no requests.
 */
final class WriteLog {

    /** Writes kept: enough to tell, right after a conflict, even when a few more writes landed meanwhile. */
    static final int SIZE = 8;

    /** What a conflicting write's log says about it. */
    enum Verdict {
        /** Our write is in the log: it was applied, and the conflict was its own replay. */
        APPLIED,
        /** Another write on the same version is in the log: ours was not applied. */
        NOT_APPLIED,
        /** The log does not reach back to the version written on: whether ours was applied is not known. */
        UNKNOWN
    }

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final String field;

    /** @param field the document's field holding the log */
    WriteLog(String field) {
        this.field = field;
    }

    String field() {
        return field;
    }

    /** A new write's id. */
    static String newId() {
        return String.format(Locale.ROOT, "%016x", ThreadLocalRandom.current().nextLong());
    }

    /** The version a write is conditional on, as the log names it: {@code term:seq_no}, or {@code new} for a create. */
    static String on(Versioned<?> base) {
        return base == null ? "new" : base.primaryTerm() + ":" + base.seqNo();
    }

    /** {@code source} without the log: what the caller's class and function deal with. */
    ObjectNode without(ObjectNode source) {
        if (source == null || !source.has(field)) {
            return source;
        }
        ObjectNode copy = NODES.objectNode();
        copy.setAll(source);
        copy.remove(field);
        return copy;
    }

    /**
     * {@code next} (without a log) with the log of {@code stored} (or none) and the entry of this write appended, the
     * oldest entries dropped past {@value #SIZE}.
     */
    ObjectNode with(ObjectNode next, ObjectNode stored, String on, String id) {
        ObjectNode out = NODES.objectNode();
        out.setAll(next);
        ArrayNode log = NODES.arrayNode();
        JsonNode before = stored == null ? null : stored.get(field);
        if (before != null && before.isArray()) {
            int from = Math.max(0, before.size() - (SIZE - 1));
            for (int i = from; i < before.size(); i++) {
                log.add(before.get(i));
            }
        }
        log.addObject().put("on", on).put("id", id);
        out.set(field, log);
        return out;
    }

    /** What the log of {@code now} (the document read after the conflict; {@code null} if gone) says of a write. */
    Verdict verdict(ObjectNode now, String on, String id) {
        JsonNode log = now == null ? null : now.get(field);
        if (log == null || !log.isArray()) {
            return Verdict.UNKNOWN;
        }
        for (JsonNode entry : log) {
            if (on.equals(entry.path("on").asText(null))) {
                return id.equals(entry.path("id").asText(null)) ? Verdict.APPLIED : Verdict.NOT_APPLIED;
            }
        }
        return Verdict.UNKNOWN;
    }
}
