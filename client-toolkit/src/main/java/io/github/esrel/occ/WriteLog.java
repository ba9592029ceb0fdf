package io.github.esrel.occ;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The write log: a field of the document holding its last {@value #SIZE} conditional writes by esrel, each as the
 * version it was written on and a random id, and what a document read after a write whose fate is in doubt (its
 * answer lost, or a conflict that may be its own replay) says of that write.
 *
 * <pre>{@code
 * "_esrel_writes": [ {"on": "1:41", "id": "9f3c0a7e5b2d4c11"}, {"on": "1:42", "id": "04b1e6d2c8a9f735"} ]
 * }</pre>
 *
 * <p>Why the log tells a write apart: a write conditional on version {@code on} (primary term and seq_no) succeeds for
 * at most one writer, however many copies of it are sent, so at most one entry names {@code on}. Each esrel write
 * keeps the entries before it, dropping the oldest past {@value #SIZE}, so the entries are the document's latest esrel
 * writes in order, until a writer without the log replaces the whole source (a partial update keeps them). Read
 * after the write, the document then says:
 * <ul>
 *   <li>an entry names {@code on}: applied if its id is ours, else another write took that version;</li>
 *   <li>no entry names {@code on}, but an older entry is there: the log reaches back past {@code on} without a break,
 *       so ours was not applied (the write on {@code on} was a writer's without the log);</li>
 *   <li>the document is still at {@code on}: not applied yet. A copy still under way can only apply on {@code on},
 *       as can a copy sent again: at most one of them will;</li>
 *   <li>exactly one write since {@code on} (its {@code _version} one above), and not ours: the document as read is
 *       that write, and ours would have left its entry last in it;</li>
 *   <li>otherwise it cannot tell.</li>
 * </ul>
 * A create is written "on" {@code new}: two creates of one document cannot both succeed either. A delete leaves no
 * entry: it is known not applied only while the document is still at {@code on}, or changed by exactly one write
 * since (a delete and a create would be two).
 *
 * <p>Pure, no requests.
 */
final class WriteLog {

    /** The field esrel keeps the log in unless told otherwise ({@link Occ.Builder#writeLog(String)}). */
    static final String DEFAULT_FIELD = "_esrel_writes";

    /** Writes kept: enough to tell, right after a conflict, even when a few more writes landed meanwhile. */
    static final int SIZE = 8;

    /** What a document read after a write whose fate is in doubt says of that write. */
    enum Verdict {
        /** The write is in the log: it was applied. */
        APPLIED,
        /** Another write took the version it was conditional on, or what happened since excludes it. */
        NOT_APPLIED,
        /** The document is still as the write found it: not applied, and a copy sent again applies at most once. */
        NOT_YET,
        /** Nothing read tells. */
        CANNOT_TELL
    }

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final String field;
    private final boolean adds;

    /**
     * @param field the document's field holding the log
     * @param adds whether writes add their entry; without, the log is only kept as stored and hidden from the class
     *     (written by another {@code Occ} with the log, it is neither lost nor shown to a class that does not map it)
     */
    WriteLog(String field, boolean adds) {
        this.field = field;
        this.adds = adds;
    }

    /** The log of an entry point without it: writes add no entry, and the default field is kept as stored. */
    static WriteLog off() {
        return new WriteLog(DEFAULT_FIELD, false);
    }

    String field() {
        return field;
    }

    /** Whether writes add their entry to the log. */
    boolean adds() {
        return adds;
    }

    /** This log where writes add their entry, {@code null} where they do not: what {@link #verdict} is given. */
    @Nullable
    WriteLog ifAdding() {
        return adds ? this : null;
    }

    /** A new write's id; {@code null} where writes add no entry. */
    @Nullable
    String newId() {
        return adds
                ? String.format(
                        Locale.ROOT, "%016x", ThreadLocalRandom.current().nextLong())
                : null;
    }

    /** The version a write is conditional on, as the log names it: {@code term:seq_no}, or {@code new} for a create. */
    static String on(@Nullable Versioned<?> base) {
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
     * {@code next} (without a log) as it is written: with the log of {@code stored} (or none) and, where writes add
     * their entry, the entry of this write ({@code on}, {@code id}) appended, the oldest entries dropped past
     * {@value #SIZE}.
     */
    ObjectNode with(ObjectNode next, @Nullable ObjectNode stored, String on, @Nullable String id) {
        JsonNode before = stored == null ? null : stored.get(field);
        if (!adds && before == null) {
            return next;
        }
        ObjectNode out = NODES.objectNode();
        out.setAll(next);
        if (!adds) {
            out.set(field, before);
            return out;
        }
        ArrayNode log = NODES.arrayNode();
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

    /**
     * What the document as read now says of a write conditional on {@code base} (see the class comment).
     *
     * @param log the log the write was made with; {@code null} for a write without one (or a delete)
     * @param now the document as read after the write; {@code null} when it does not exist
     * @param base the document the write was conditional on; {@code null} for a create
     * @param id the write's id in the log; {@code null} without one
     * @param delete whether the write was a conditional delete
     * @return the verdict
     */
    static Verdict verdict(
            @Nullable WriteLog log,
            @Nullable Versioned<ObjectNode> now,
            @Nullable Versioned<?> base,
            @Nullable String id,
            boolean delete) {
        if (now == null) {
            // Gone: a create was not applied (yet); an update or a delete may have been, before the document went.
            return base == null && !delete ? Verdict.NOT_YET : Verdict.CANNOT_TELL;
        }
        if (base != null && now.seqNo() == base.seqNo() && now.primaryTerm() == base.primaryTerm()) {
            return Verdict.NOT_YET;
        }
        if (base != null && now.seqNo() < base.seqNo()) {
            return Verdict.CANNOT_TELL; // read from a copy that has not caught up with the one read before
        }
        boolean oneWriteSince = base == null ? now.version() == 1 : now.version() == base.version() + 1;
        if (delete) {
            // A delete of ours would have removed it: present and changed by one write since, it was not ours.
            return base != null && oneWriteSince ? Verdict.NOT_APPLIED : Verdict.CANNOT_TELL;
        }
        if (log == null || id == null) {
            return Verdict.CANNOT_TELL; // the one write since may have been ours
        }
        JsonNode entries = now.value() == null ? null : now.value().get(log.field);
        String on = on(base);
        long onSeq = base == null ? -1 : base.seqNo();
        boolean reachesBack = false;
        if (entries != null && entries.isArray()) {
            for (JsonNode entry : entries) {
                String entryOn = entry.path("on").asText(null);
                if (on.equals(entryOn)) {
                    return id.equals(entry.path("id").asText(null)) ? Verdict.APPLIED : Verdict.NOT_APPLIED;
                }
                reachesBack |= base != null && seqOf(entryOn) >= 0 && seqOf(entryOn) < onSeq;
            }
        }
        // Our entry would be there: the log goes back past our version, or the one write since is the document read.
        return reachesBack || oneWriteSince ? Verdict.NOT_APPLIED : Verdict.CANNOT_TELL;
    }

    /** The seq_no of an entry's {@code term:seq_no}; -1 for {@code new} or anything else. */
    private static long seqOf(@Nullable String on) {
        if (on == null) {
            return -1;
        }
        int colon = on.indexOf(':');
        if (colon < 0) {
            return -1;
        }
        try {
            return Long.parseLong(on.substring(colon + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
