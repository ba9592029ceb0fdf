package io.github.esrel.denorm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.JsonTrees;
import org.jspecify.annotations.Nullable;

/**
 * The pure heart of a propagation: given a child as read and the parent as read <em>after</em> it,
 * what (if anything) to write. No I/O.
 *
 * <p>A child is up to date when every copy equals the parent's value (numbers by value; missing and
 * null alike) and its stamp is at least the parent's seq_no. Otherwise the copies are set (a missing
 * parent value removes the copy) and the stamp is set to the parent's seq_no; everything else in the
 * child is kept as read.
 */
final class ChildRewrite {

    enum Kind {
        /** Nothing to write. */
        UP_TO_DATE,
        /** The child names another parent (or none) now. */
        MOVED,
        /** The copies cannot be applied (a target path crosses a non-object value). */
        INVALID,
        /** Write {@link Decision#full} (or the partial document). */
        WRITE
    }

    /**
     * @param full the whole new source, for an index operation (WRITE only)
     * @param partial only the copies and the stamp, for an update operation (WRITE only)
     * @param error why the child is INVALID
     */
    record Decision(
            Kind kind,
            @Nullable ObjectNode full,
            @Nullable ObjectNode partial,
            @Nullable String error) {
        static final Decision UP_TO_DATE = new Decision(Kind.UP_TO_DATE, null, null, null);
        static final Decision MOVED = new Decision(Kind.MOVED, null, null, null);
    }

    /** The parent as read: its id, source and {@code _seq_no}. */
    record Parent(String id, ObjectNode source, long seqNo) {}

    private ChildRewrite() {}

    /**
     * @param ignoreStamps true to judge by the copied values alone and stamp every child anew (after the
     *     parent index was rebuilt and its seq_nos restarted)
     */
    static Decision decide(Relation relation, ObjectNode child, Parent parent, boolean ignoreStamps) {
        return decide(relation, child, parent, ignoreStamps, true, true, false);
    }

    /**
     * As {@link #decide(Relation, ObjectNode, Parent, boolean)}, building only the documents asked for
     * (a propagation writes one of the two); with {@code inPlace} the full document is {@code child}
     * itself, changed (for a caller that owns it and needs it no more: saves a copy per child).
     */
    static Decision decide(
            Relation relation,
            ObjectNode child,
            Parent parent,
            boolean ignoreStamps,
            boolean wantFull,
            boolean wantPartial,
            boolean inPlace) {
        if (child == null) {
            return Decision.MOVED;
        }
        if (!parent.id().equals(JsonTrees.idText(JsonTrees.get(child, relation.parentIdField())))) {
            return Decision.MOVED;
        }
        boolean same = true;
        for (Relation.Copy c : relation.copies()) {
            if (!JsonTrees.same(JsonTrees.get(child, c.to()), JsonTrees.get(parent.source(), c.from()))) {
                same = false;
                break;
            }
        }
        JsonNode stampNode = JsonTrees.get(child, relation.stampField());
        Long stamp = stampNode != null && stampNode.canConvertToLong() && stampNode.isIntegralNumber()
                ? stampNode.asLong()
                : null;
        if (same && stamp != null && (ignoreStamps ? stamp == parent.seqNo() : stamp >= parent.seqNo())) {
            return Decision.UP_TO_DATE;
        }
        ObjectNode full = wantFull ? (inPlace ? child : child.deepCopy()) : null;
        ObjectNode partial = wantPartial ? JsonTrees.object() : null;
        try {
            for (Relation.Copy c : relation.copies()) {
                JsonNode value = JsonTrees.get(parent.source(), c.from());
                boolean missing = value == null || value.isNull();
                if (full != null) {
                    if (missing) {
                        JsonTrees.remove(full, c.to());
                    } else {
                        JsonTrees.set(full, c.to(), value);
                    }
                }
                if (partial != null) {
                    JsonTrees.set(partial, c.to(), missing ? NullNode.getInstance() : value);
                }
            }
            LongNode seq = LongNode.valueOf(parent.seqNo());
            if (full != null) {
                JsonTrees.set(full, relation.stampField(), seq);
            }
            if (partial != null) {
                JsonTrees.set(partial, relation.stampField(), seq);
            }
        } catch (IllegalArgumentException e) {
            return new Decision(Kind.INVALID, null, null, e.getMessage());
        }
        return new Decision(Kind.WRITE, full, partial, null);
    }
}
