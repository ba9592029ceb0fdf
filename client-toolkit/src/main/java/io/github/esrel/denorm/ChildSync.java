package io.github.esrel.denorm;

import org.jspecify.annotations.Nullable;

/**
 * What {@link Propagator#syncChild} did to one child.
 *
 * @param childId the child
 * @param status what happened
 * @param parentId the parent the child points to, or {@code null}
 * @param parentSeqNo the parent's {@code _seq_no} the copies now come from, or -1
 * @param attempts read-write attempts made (more than 1 after version conflicts)
 */
public record ChildSync(
        String childId, Status status, @Nullable String parentId, long parentSeqNo, int attempts) {

    /** What happened to the child. */
    public enum Status {
        /** The child was rewritten with its parent's current copies. */
        WRITTEN,
        /** It already carried them; nothing written. */
        UP_TO_DATE,
        /** There is no such child. */
        NOT_FOUND,
        /** The child names no parent, or its parent does not exist; nothing written. */
        NO_PARENT
    }
}
