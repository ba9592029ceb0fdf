package io.github.esrel.view;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jspecify.annotations.Nullable;

/**
 * A stored view document with its bookkeeping.
 *
 * @param id the view's id, the source document's id
 * @param version its external version: the clock value at which its sources were read
 * @param document the view as composed (without the bookkeeping field)
 * @param sourceSeqNo the {@code _seq_no} of the source it was built from
 * @param parentId the parent it was built with, or {@code null}
 * @param parentSeqNo the parent's {@code _seq_no}, or -1 when there was no parent
 */
public record ViewDoc(
        String id,
        long version,
        ObjectNode document,
        long sourceSeqNo,
        @Nullable String parentId,
        long parentSeqNo) {}
