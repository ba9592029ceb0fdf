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

    /** Sends the write. */
    @FunctionalInterface
    interface Request {
        Stored send() throws IOException;
    }

    /** Where a write's answer says it stored the document (for a delete: the delete's own seq_no and version). */
    record Stored(String index, long seqNo, long primaryTerm, long version) {
        static Stored of(WriteResponseBase r) {
            return new Stored(r.index(), r.seqNo(), r.primaryTerm(), r.version());
        }
    }

    /** Sends the write; the future fails with what the blocking {@link Request} throws. */
    @FunctionalInterface
    interface AsyncRequest {
        CompletableFuture<Stored> send();
    }

    /** Reads the document now (realtime), completing with {@code null} when it does not exist. */
    @FunctionalInterface
    interface AsyncRead {
        CompletableFuture<@Nullable Versioned<ObjectNode>> now();
    }

    /** Reads the document now (realtime); {@code null} when it does not exist. */
    @FunctionalInterface
    interface Read {
        @Nullable
        Versioned<ObjectNode> now() throws IOException;
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
     * Sends the write until its fate is known or cannot be, on the caller's thread.
     *
     * @param log the write log the write carries; {@code null} without one (and for a delete)
     * @param base the document the write is conditional on; {@code null} for a create
     * @param id the write's id in the log; {@code null} without one
     * @param delete whether it is a conditional delete
     * @throws ElasticsearchException a refusal that says nothing was written (a 4xx other than 409, a 429, no primary)
     */
    static Fate send(
            Request request,
            Read read,
            @Nullable WriteLog log,
            @Nullable Versioned<?> base,
            @Nullable String id,
            boolean delete) {
        CompletableFuture<Fate> fate =
                sendAsync(() -> Futures.now(request::send), () -> readNow(read), log, base, id, delete);
        try {
            return Futures.await(fate);
        } catch (IOException e) {
            throw new IllegalStateException("a fate is never an IOException", e); // send turns them into Unknown
        }
    }

    /**
     * {@link #send}, over futures: the same rule for the blocking form (whose futures are complete when returned) and
     * the non-blocking one. The returned future fails with the refusal {@link #send} throws.
     */
    static CompletableFuture<Fate> sendAsync(
            AsyncRequest request,
            AsyncRead read,
            @Nullable WriteLog log,
            @Nullable Versioned<?> base,
            @Nullable String id,
            boolean delete) {
        return sendAsync(request, read, log, base, id, delete, 1, false, null);
    }

    private static CompletableFuture<Fate> sendAsync(
            AsyncRequest request,
            AsyncRead read,
            @Nullable WriteLog log,
            @Nullable Versioned<?> base,
            @Nullable String id,
            boolean delete,
            int sends,
            boolean wasInDoubt,
            @Nullable Exception wasLost) {
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
                        return CompletableFuture.completedFuture(
                                new NotApplied(null, conflict)); // a plain conflict: nothing can tell more
                    }
                    boolean doubt = inDoubt;
                    Exception lostAnswer = lost;
                    ElasticsearchException conflicted = conflict;
                    return read.now()
                            .handle((now, readFailure) -> {
                                Throwable cause = readFailure == null ? null : Futures.unwrap(readFailure);
                                if (cause != null
                                        && !(cause instanceof ElasticsearchException)
                                        && !(cause instanceof IOException)) {
                                    throw Futures.rethrow(cause);
                                }
                                return cause != null
                                        ? CompletableFuture.<Fate>completedFuture(
                                                doubt
                                                        ? new Unknown(lostOr(lostAnswer, conflicted))
                                                        : new NotApplied(null, answered(conflicted)))
                                        : afterRead(
                                                request,
                                                read,
                                                log,
                                                base,
                                                id,
                                                delete,
                                                sends,
                                                doubt,
                                                lostAnswer,
                                                conflicted,
                                                now);
                            })
                            .thenCompose(f -> f);
                });
    }

    /** What the document read after a send in doubt, or after a conflict that may be the write's own copy, says. */
    private static CompletableFuture<Fate> afterRead(
            AsyncRequest request,
            AsyncRead read,
            @Nullable WriteLog log,
            @Nullable Versioned<?> base,
            @Nullable String id,
            boolean delete,
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
                    return sendAsync(request, read, log, base, id, delete, sends + 1, inDoubt, lost);
                } else {
                    fate = new Unknown(lostOr(lost, null)); // no conflict: the answer was lost
                }
                break;
            default: // CANNOT_TELL
                fate = inDoubt ? new Unknown(lostOr(lost, conflict)) : new NotApplied(now, answered(conflict));
        }
        return CompletableFuture.completedFuture(fate);
    }

    /** {@code read} now, as a complete future. */
    private static CompletableFuture<@Nullable Versioned<ObjectNode>> readNow(Read read) {
        try {
            return CompletableFuture.completedFuture(read.now());
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
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
