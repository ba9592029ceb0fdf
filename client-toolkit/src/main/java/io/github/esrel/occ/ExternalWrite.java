package io.github.esrel.occ;

import org.jspecify.annotations.Nullable;

/**
 * What an {@link ExternalVersions} write or delete did.
 *
 * @param index the index
 * @param id the document id
 * @param routing the routing used, or {@code null}
 * @param status what happened
 * @param requestedVersion the external version sent
 * @param storedVersion the version Elasticsearch holds for the document afterwards: the requested one
 *     when applied; for {@code STALE}, the newer version (or delete tombstone) that won, read from
 *     the conflict; -1 when unknown
 * @param seqNo {@code _seq_no} after the write, -1 when nothing was written
 * @param primaryTerm {@code _primary_term} after the write, -1 when nothing was written
 * @param explanation why, in words, for {@code STALE}, {@code RECREATED} and {@code UNKNOWN}; {@code null} otherwise
 */
public record ExternalWrite(
        String index,
        String id,
        @Nullable String routing,
        Status status,
        long requestedVersion,
        long storedVersion,
        long seqNo,
        long primaryTerm,
        @Nullable String explanation) {

    /** What happened. */
    public enum Status {
        /** Indexed over an existing document with a lower version. */
        UPDATED,
        /** Indexed; no document existed (and no remembered delete with a higher version). */
        CREATED,
        /** Deleted; Elasticsearch keeps the delete's version as a tombstone for {@code index.gc_deletes}. */
        DELETED,
        /**
         * A delete of a document that did not exist. Elasticsearch still records the delete's version, so
         * older writes arriving within {@code index.gc_deletes} are refused.
         */
        NOT_FOUND,
        /**
         * Refused (409): Elasticsearch holds the same or a newer version of the document, or a delete
         * tombstone with one. The write was old news; nothing changed. An expected outcome with external
         * versions, not an error.
         */
        STALE,
        /**
         * Applied, but it should not have been: this client had deleted the document with a higher
         * version earlier, and that delete had been forgotten ({@code index.gc_deletes} elapsed), so the
         * older write created the document again (seed 004's "late write after a delete"). The document
         * now exists with old data; {@link #explanation()} says when it was deleted and what to do.
         */
        RECREATED,
        /**
         * The write or delete was sent, but whether Elasticsearch applied it is not known: the connection failed or
         * timed out before the answer, or Elasticsearch answered with a server error that does not say it was
         * refused. Sending it again is safe with external versions (an applied copy makes the repeat
         * {@code STALE}, or applies it once), and is the caller's to decide; {@link #explanation()} says why.
         */
        UNKNOWN
    }

    /**
     * True when the write or delete changed the index (including {@code RECREATED}).
     *
     * @return false for {@link Status#STALE} and {@link Status#UNKNOWN} (which may or may not have)
     */
    public boolean applied() {
        return status != Status.STALE && status != Status.UNKNOWN;
    }

    /**
     * True when whether the write or delete was applied is not known ({@link Status#UNKNOWN}).
     *
     * @return whether the outcome is unknown
     */
    public boolean unknown() {
        return status == Status.UNKNOWN;
    }
}
