package io.github.esrel.occ;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch._types.WriteResponseBase;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.Futures;
import io.github.esrel.retry.Failures;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One conditional write (or delete) of one document, sent until its fate is known or cannot be: when its answer is
 * lost, or a conflict may be its own copy's, the document is read again and {@link WriteLog#verdict} decides.
 *
 * <ul>
 *   <li>Answered: the answer (a conflict is the caller's to retry, unless the log shows the write applied by a copy
 *       sent before: a replay by a proxy or by Elasticsearch after a failover).</li>
 *   <li>Its answer lost (a connection failure, a refused resend, a server error that does not say it refused the
 *       write): read again. Applied or not applied as the document shows; still as the write found it, the same
 *       write is sent again, up to {@value #MAX_SENDS} copies in all (conditional on the same version, so at most one
 *       copy is ever applied); otherwise unknown.</li>
 * </ul>
 * A conflict is read again only where a copy may have been applied: with the write log (to recognise a copy esrel
 * does not see) or after a lost answer. A write the document cannot tell about is unknown only after a lost answer; a
 * plain conflict stays a conflict.
 */
final class ConditionalWrite {

    /** Copies of one write sent at most while the document stays as the write found it. */
    static final int MAX_SENDS = 4;

    /** What the outcome of an {@link Applied} write says in {@link Outcome#error()}. */
    static final String APPLIED_UNSEEN = "applied: its answer was lost, or a copy of it sent again conflicted with it,"
            + " and the write log shows it applied; its seq_no is not known";

    /** Where a write's answer says it stored the document (for a delete: the delete's own seq_no and version). */
    record Stored(String index, long seqNo, long primaryTerm, long version) {
        static Stored of(WriteResponseBase r) {
            return new Stored(r.index(), r.seqNo(), r.primaryTerm(), r.version());
        }
    }

    /** Sends the write; the future fails with the request's failure (an ElasticsearchException, an IOException). */
    @FunctionalInterface
    interface Request {
        CompletableFuture<Stored> send();
    }

    /** Reads the document now (realtime), completing with {@code null} when it does not exist. */
    @FunctionalInterface
    interface Read {
        CompletableFuture<@Nullable Versioned<ObjectNode>> now();
    }

    /** What became of the write. */
    sealed interface Fate permits Written, Applied, NotApplied, Unknown {}

    /** Answered as written. */
    record Written(Stored stored) implements Fate {}

    /** Applied, as the document read after it shows (its seq_no is not known); {@code now} is that read. */
    record Applied(Versioned<ObjectNode> now) implements Fate {}

    /**
     * Not applied: another write took the version it was conditional on. {@code now} is the document as read after
     * (may be {@code null}: not read, or gone); {@code conflict} the conflict answered, or one standing for it.
     */
    record NotApplied(@Nullable Versioned<ObjectNode> now, ElasticsearchException conflict) implements Fate {}

    /** Sent, and whether it was applied is not known: {@code cause} says why. */
    record Unknown(Exception cause) implements Fate {}

    private ConditionalWrite() {}

    /**
     * Sends the write until its fate is known or cannot be: one rule for the blocking form (whose futures are complete
     * when returned) and the non-blocking one.
     *
     * @param log the write log the write carries; {@code null} without one (and for a delete)
     * @param base the document the write is conditional on; {@code null} for a create
     * @param id the write's id in the log; {@code null} without one
     * @param delete whether it is a conditional delete
     * @return the fate; fails with a refusal that says nothing was written (an {@link ElasticsearchException}: a 4xx
     *     other than 409, a 429, no primary)
     */
    static CompletableFuture<Fate> send(
            Request request,
            Read read,
            @Nullable WriteLog log,
            @Nullable Versioned<?> base,
            @Nullable String id,
            boolean delete) {
        return new Sending(request, read, log, base, id, delete).send(1, false, null);
    }

    /** One write on its way: what stays the same from one copy of it to the next. */
    private record Sending(
            Request request,
            Read read,
            @Nullable WriteLog log,
            @Nullable Versioned<?> base,
            @Nullable String id,
            boolean delete) {

        /**
         * Sends copy number {@code sends}; {@code wasInDoubt} and {@code wasLost} say whether an earlier copy's answer
         * was lost, and how.
         */
        CompletableFuture<Fate> send(int sends, boolean wasInDoubt, @Nullable Exception wasLost) {
            return request.send()
                    .<Object>handle((stored, failure) -> failure == null ? stored : Futures.unwrap(failure))
                    .thenCompose(answer -> {
                        if (answer instanceof Stored stored) {
                            return CompletableFuture.completedFuture(new Written(stored));
                        }
                        boolean inDoubt = wasInDoubt;
                        Exception lost = wasLost;
                        ElasticsearchException conflict = null;
                        if (answer instanceof ElasticsearchException e) {
                            if (e.status() == Failures.CONFLICT) {
                                conflict = e;
                            } else if (Errors.mayHaveApplied(e)) {
                                inDoubt = true;
                                lost = e;
                            } else {
                                throw e;
                            }
                        } else if (answer instanceof IOException e) {
                            inDoubt = true;
                            lost = e;
                        } else {
                            throw Futures.rethrow((Throwable) answer);
                        }
                        if (conflict != null && !inDoubt && (log == null || delete)) {
                            // A plain conflict: nothing can tell more.
                            return CompletableFuture.completedFuture(new NotApplied(null, conflict));
                        }
                        return readAfter(sends, inDoubt, lost, conflict);
                    });
        }

        /** Reads the document after a send in doubt, or after a conflict that may be the write's own copy. */
        private CompletableFuture<Fate> readAfter(
                int sends, boolean inDoubt, @Nullable Exception lost, @Nullable ElasticsearchException conflict) {
            return read.now()
                    .handle((now, readFailure) -> {
                        Throwable cause = readFailure == null ? null : Futures.unwrap(readFailure);
                        if (cause == null) {
                            return afterRead(sends, inDoubt, lost, conflict, now);
                        }
                        if (!(cause instanceof ElasticsearchException) && !(cause instanceof IOException)) {
                            throw Futures.rethrow(cause);
                        }
                        return CompletableFuture.<Fate>completedFuture(
                                inDoubt
                                        ? new Unknown(lostOr(lost, conflict))
                                        : new NotApplied(null, answered(conflict)));
                    })
                    .thenCompose(f -> f);
        }

        /** What the document read after the send says. */
        private CompletableFuture<Fate> afterRead(
                int sends,
                boolean inDoubt,
                @Nullable Exception lost,
                @Nullable ElasticsearchException conflict,
                @Nullable Versioned<ObjectNode> now) {
            Fate fate;
            switch (WriteLog.verdict(delete ? null : log, now, base, id, delete)) {
                case APPLIED:
                    fate = new Applied(Objects.requireNonNull(now, "an APPLIED verdict is read from a document"));
                    break;
                case NOT_APPLIED:
                    fate = new NotApplied(now, conflict != null ? conflict : lostToAnother(base));
                    break;
                case NOT_YET:
                    if (conflict != null) {
                        // A conflict, yet the read shows the version written on: read from a copy behind the primary.
                        fate = inDoubt ? new Unknown(lostOr(lost, conflict)) : new NotApplied(now, conflict);
                    } else if (sends < MAX_SENDS) {
                        // Conditional on the same version as every copy before: at most one applies.
                        return send(sends + 1, inDoubt, lost);
                    } else {
                        fate = new Unknown(lostOr(lost, null)); // no conflict: the answer was lost
                    }
                    break;
                default: // CANNOT_TELL
                    fate = inDoubt ? new Unknown(lostOr(lost, conflict)) : new NotApplied(now, answered(conflict));
            }
            return CompletableFuture.completedFuture(fate);
        }
    }

    /** Why a send in doubt is unknown: its lost answer (a send is in doubt only after one), else its conflict. */
    private static Exception lostOr(@Nullable Exception lost, @Nullable ElasticsearchException conflict) {
        Exception cause = lost != null ? lost : conflict;
        if (cause == null) {
            throw new IllegalStateException("a send in doubt without a lost answer");
        }
        return cause;
    }

    /** The conflict of a send not in doubt: answered with anything else, it returned or threw. */
    private static ElasticsearchException answered(@Nullable ElasticsearchException conflict) {
        if (conflict == null) {
            throw new IllegalStateException("a send neither answered with a conflict nor in doubt");
        }
        return conflict;
    }

    /** A conflict standing for "another write took the version this one was conditional on", as its answer would be. */
    private static ElasticsearchException lostToAnother(@Nullable Versioned<?> base) {
        String on = base == null
                ? "no document"
                : "seqNo [" + base.seqNo() + "], primary term [" + base.primaryTerm() + "]";
        return Failures.ofBulkItem(
                Failures.CONFLICT,
                ErrorCause.of(e -> e.type("version_conflict_engine_exception")
                        .reason("version conflict, required " + on
                                + ": another write was applied on it while this one's answer was lost")));
    }
}
