package io.github.esrel.occ;

import io.github.esrel.retry.StopReason;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What an optimistic operation did to one document: whether it wrote, how many attempts and
 * conflicts it took, and the document's sequence number, primary term and version afterwards.
 *
 * <p>Expected outcomes are values: a missing document ({@link Status#NOT_FOUND}) and a function that
 * changed nothing ({@link Status#NOOP}) are statuses, not exceptions. Giving up after version conflicts
 * is an {@link OccConflictException} from {@link Occ#update}, {@link Occ#upsert}, {@link Occ#deleteIf},
 * {@link Occ#replace} and {@link Occ#deleteIfUnchanged}, so that a lost update cannot go unnoticed; their
 * {@code try} variants ({@link Occ#tryUpdate} and so on) and {@link BulkUpdate#tryExecute()} return it as
 * {@link Status#CONFLICT} instead, for callers that handle it ({@link #orThrow()} turns it back into the
 * exception). Immutable.
 *
 * @param <T> the caller's document type
 */
public final class Outcome<T> {

    /** What happened to the document. */
    public enum Status {
        /** An existing document was changed by the function (what its class does not map kept as stored). */
        UPDATED,
        /** The document did not exist and was created (upsert). */
        CREATED,
        /** Deleted. */
        DELETED,
        /**
         * Nothing was written: the function returned a value equal to the stored one (update), or the
         * condition was false (delete-if). seq_no/primary_term are those of the document as read.
         */
        NOOP,
        /** No such document; nothing was written. */
        NOT_FOUND,
        /**
         * Gave up on version conflicts: other writers kept changing the document until the retry policy
         * ran out ({@link #stopReason()} says which limit), or a single conditional write found the
         * document changed since it was read. Nothing was written by this operation.
         */
        CONFLICT,
        /**
         * Bulk only: the item failed with an error that retrying does not fix ({@link #error()}).
         * Single-document operations throw {@link OccException} instead.
         */
        FAILED,
        /**
         * The write (or delete) was sent, but whether Elasticsearch applied it is not known, and esrel did not send
         * it again, which could apply it twice. It happens when the connection failed or timed out before the answer,
         * when Elasticsearch answered with a server error (5xx) that does not say the write was refused, and when it
         * answered a version conflict while the document holds exactly what the write would have stored (a write
         * replayed after a failover, by Elasticsearch or by the client's transport, conflicts with itself:
         * elasticsearch#9967). Read the document to decide; {@link #error()} says why; {@link #orThrow()} throws
         * {@link OccUnknownOutcomeException}.
         */
        UNKNOWN
    }

    /**
     * Which {@link Occ} operation produced an outcome: a low-cardinality name for meters and traces
     * ({@link #label()}), never anything about the document.
     */
    public enum Operation {
        /** {@link Occ#update} and {@link Occ#tryUpdate}. */
        UPDATE,
        /** {@link Occ#upsert} and {@link Occ#tryUpsert}. */
        UPSERT,
        /** {@link Occ#deleteIf} and {@link Occ#tryDeleteIf}. */
        DELETE_IF,
        /** {@link Occ#replace} and {@link Occ#tryReplace}. */
        REPLACE,
        /** {@link Occ#deleteIfUnchanged} and {@link Occ#tryDeleteIfUnchanged}. */
        DELETE_IF_UNCHANGED,
        /** {@link Occ#scriptedUpdate}. */
        SCRIPTED_UPDATE,
        /** One item of a {@link BulkUpdate}. */
        BULK;

        // Computed once: meters tag every call with it.
        private final String label = name().toLowerCase(Locale.ROOT);

        /**
         * The operation's name in lower snake case ({@code update}, {@code delete_if}, {@code bulk}, …), for tags.
         *
         * @return the label, never {@code null}
         */
        public String label() {
            return label;
        }
    }

    private final Operation operation;
    /**
     * The document as the operation left it (or as read, for a {@code NOOP}): {@link #versioned()} hands it out when it
     * is stored.
     */
    private final Versioned<T> doc;

    private final Status status;
    private final int attempts;
    private final int conflicts;
    private final StopReason stopReason;
    private final @Nullable String error;
    private final Duration took;
    /** Why the outcome is {@code UNKNOWN}: the exception, for the one {@link #orThrow()} throws. */
    private final @Nullable Throwable cause;

    // Versioned's value is declared non-null, but an outcome without a value (a scripted update's, a missing
    // document's) keeps a null one there on purpose: value() declares it, and versioned() hands it out as is.
    @SuppressWarnings("NullAway")
    private Outcome(Builder<T> b) {
        this.operation = b.operation;
        this.doc = new Versioned<>(b.index, b.id, b.routing, b.value, b.seqNo, b.primaryTerm, b.version);
        this.status = Objects.requireNonNull(b.status);
        this.attempts = b.attempts;
        this.conflicts = b.conflicts;
        this.stopReason = b.stopReason == null ? StopReason.NONE : b.stopReason;
        this.error = b.error;
        this.took = b.took;
        this.cause = b.cause;
    }

    /**
     * Starts the outcome of one operation on one document: its index (the concrete one when Elasticsearch reported
     * it, else as the caller gave it), id, routing ({@code null} when routed by id) and status.
     */
    static <T> Builder<T> builder(String index, String id, @Nullable String routing, Status status) {
        return new Builder<>(index, id, routing, status);
    }

    /**
     * Assembles an {@link Outcome} in parts: the document and status, the value, the version, the effort. What is
     * not set is unknown (seq_no, primary term and version -1), absent (value, error), {@link StopReason#NONE}, or
     * one attempt without conflicts that took no time.
     */
    static final class Builder<T> {
        private final String index;
        private final String id;
        private final @Nullable String routing;
        private final Status status;
        private Operation operation = Operation.UPDATE;
        private @Nullable T value;
        private @Nullable Throwable cause;
        private long seqNo = -1;
        private long primaryTerm = -1;
        private long version = -1;
        private int attempts = 1;
        private int conflicts;
        private @Nullable StopReason stopReason;
        private @Nullable String error;
        private Duration took = Duration.ZERO;

        private Builder(String index, String id, @Nullable String routing, Status status) {
            this.index = index;
            this.id = id;
            this.routing = routing;
            this.status = status;
        }

        /** The value written, stored, deleted or last computed (see {@link Outcome#value()}). */
        Builder<T> operation(Operation operation) {
            this.operation = operation;
            return this;
        }

        Builder<T> value(@Nullable T value) {
            this.value = value;
            return this;
        }

        /** The document's seq_no, primary term and version after the operation (as read, for a NOOP). */
        Builder<T> version(long seqNo, long primaryTerm, long version) {
            this.seqNo = seqNo;
            this.primaryTerm = primaryTerm;
            this.version = version;
            return this;
        }

        /** Attempts made and the version conflicts met on the way. */
        Builder<T> attempts(int attempts, int conflicts) {
            this.attempts = attempts;
            this.conflicts = conflicts;
            return this;
        }

        /** Why retrying stopped; {@code null} for {@link StopReason#NONE}. */
        Builder<T> stopReason(@Nullable StopReason stopReason) {
            this.stopReason = stopReason;
            return this;
        }

        /** The error of a failed item, or a hint. */
        Builder<T> error(@Nullable String error) {
            this.error = error;
            return this;
        }

        /** What made the outcome {@code UNKNOWN}, kept as the cause of {@link OccUnknownOutcomeException}. */
        Builder<T> cause(@Nullable Throwable cause) {
            this.cause = cause;
            return this;
        }

        /** The operation started at {@code startNanos} ({@link System#nanoTime()}): it took the time since. */
        Builder<T> since(long startNanos) {
            this.took = Duration.ofNanos(System.nanoTime() - startNanos);
            return this;
        }

        Outcome<T> build() {
            return new Outcome<>(this);
        }
    }

    /**
     * The index of the document: the concrete index Elasticsearch reported when a single-document
     * operation found or wrote the document (an alias resolved); otherwise, and for bulk items, the index
     * as the caller gave it.
     *
     * @return the index name, never {@code null}
     */
    public String index() {
        return doc.index();
    }

    /**
     * The id of the document.
     *
     * @return the document id, never {@code null}
     */
    public String id() {
        return doc.id();
    }

    /**
     * The routing the operation used, or {@code null}.
     *
     * @return the routing value, or {@code null} when the document was routed by its id
     */
    public @Nullable String routing() {
        return doc.routing();
    }

    /**
     * The operation that produced this outcome.
     *
     * @return the operation, never {@code null}
     */
    public Operation operation() {
        return operation;
    }

    /**
     * What happened to the document.
     *
     * @return the status, never {@code null}
     */
    public Status status() {
        return status;
    }

    /**
     * The document's value: as written ({@code UPDATED}, {@code CREATED}), as stored ({@code NOOP}),
     * as it was before deletion ({@code DELETED}), the last value computed before giving up
     * ({@code CONFLICT}, when the function ran); {@code null} otherwise.
     *
     * @return the value, or {@code null} (always {@code null} for scripted updates)
     */
    public @Nullable T value() {
        return doc.value();
    }

    /**
     * {@code _seq_no} after the operation (of the document as read for {@code NOOP}); -1 when unknown.
     * With write combining (see {@link Occ}) several callers' outcomes name the same seq_no: the one write
     * that stored all their changes.
     *
     * @return the sequence number, or -1
     */
    public long seqNo() {
        return doc.seqNo();
    }

    /**
     * {@code _primary_term} after the operation; -1 when unknown.
     *
     * @return the primary term, or -1
     */
    public long primaryTerm() {
        return doc.primaryTerm();
    }

    /**
     * {@code _version} after the operation; -1 when unknown.
     *
     * @return the version, or -1
     */
    public long version() {
        return doc.version();
    }

    /**
     * Attempts made (reads and conditional writes count as one attempt together), at least 1. A combined
     * write counts as one attempt for every call it carries.
     *
     * @return the number of attempts
     */
    public int attempts() {
        return attempts;
    }

    /**
     * Version conflicts (409) met on the way; {@code attempts() - 1} or fewer retries were for them.
     *
     * @return the number of conflicts, 0 when none
     */
    public int conflicts() {
        return conflicts;
    }

    /**
     * Why retrying stopped, for {@code CONFLICT} and {@code FAILED}; {@link StopReason#NONE} otherwise.
     *
     * @return the stop reason, never {@code null}
     */
    public StopReason stopReason() {
        return stopReason;
    }

    /**
     * The error of a {@code FAILED} bulk item ({@code type: reason}), or a hint for {@code NOT_FOUND}; else null.
     *
     * @return the error message, or {@code null}
     */
    public @Nullable String error() {
        return error;
    }

    /**
     * Wall time of the whole operation, retries and backoff included.
     *
     * @return the duration, never {@code null}
     */
    public Duration took() {
        return took;
    }

    /**
     * True if this operation wrote (updated, created or deleted) the document.
     *
     * @return true for {@code UPDATED}, {@code CREATED} and {@code DELETED}
     */
    public boolean written() {
        return status == Status.UPDATED || status == Status.CREATED || status == Status.DELETED;
    }

    /**
     * True for {@link Status#UNKNOWN}: the write was sent, and whether it was applied is not known.
     *
     * @return whether the outcome is unknown
     */
    public boolean unknown() {
        return status == Status.UNKNOWN;
    }

    /**
     * True for {@link Status#CONFLICT}.
     *
     * @return whether the operation gave up on version conflicts
     */
    public boolean gaveUp() {
        return status == Status.CONFLICT;
    }

    /**
     * This outcome, unless it gave up or failed.
     *
     * @return this outcome, unchanged
     * @throws OccConflictException for {@link Status#CONFLICT}
     * @throws OccUnknownOutcomeException for {@link Status#UNKNOWN}
     * @throws OccException for {@link Status#FAILED}
     */
    public Outcome<T> orThrow() {
        if (status == Status.CONFLICT) {
            throw new OccConflictException(this);
        }
        if (status == Status.UNKNOWN) {
            throw new OccUnknownOutcomeException(this, cause);
        }
        if (status == Status.FAILED) {
            throw new OccException(describe(), 0, null);
        }
        return this;
    }

    /**
     * The document as now stored, for a later conditional write or delete; only when it exists.
     *
     * @return the index, id, routing, value, seq_no, primary term and version of this outcome
     * @throws IllegalStateException for {@code DELETED} and {@code NOT_FOUND}, or when the seq_no is
     *     unknown ({@code CONFLICT}, {@code FAILED}, {@code UNKNOWN})
     */
    public Versioned<T> versioned() {
        if (status == Status.DELETED || status == Status.NOT_FOUND || doc.seqNo() < 0) {
            throw new IllegalStateException("no stored document to refer to: " + describe());
        }
        return doc;
    }

    /**
     * One line for logs and exceptions.
     *
     * @return the document, the status, the attempts and, depending on the status, the conflicts and
     *     stop reason, the error, or the seq_no, primary term and version
     */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append('[').append(doc.index()).append("][").append(doc.id()).append(']');
        if (doc.routing() != null) {
            sb.append(" routing [").append(doc.routing()).append(']');
        }
        sb.append(' ').append(status);
        switch (status) {
            case CONFLICT ->
                sb.append(": gave up after ")
                        .append(attempts)
                        .append(" attempt(s) and ")
                        .append(conflicts)
                        .append(" version conflict(s) (")
                        .append(stopReason)
                        .append(')');
            case FAILED, UNKNOWN ->
                sb.append(" after ").append(attempts).append(" attempt(s): ").append(error);
            default -> {
                sb.append(" after ").append(attempts).append(" attempt(s)");
                if (doc.seqNo() >= 0) {
                    sb.append(", seq_no ")
                            .append(doc.seqNo())
                            .append(", primary_term ")
                            .append(doc.primaryTerm())
                            .append(", version ")
                            .append(doc.version());
                }
                if (error != null) {
                    sb.append(": ").append(error);
                }
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "Outcome{" + describe() + '}';
    }
}
