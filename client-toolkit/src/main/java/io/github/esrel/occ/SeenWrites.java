package io.github.esrel.occ;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.GetResponse;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.Futures;
import io.github.esrel.retry.StopReason;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What the caller saw ({@code get}) and the writes of what it decided from that version ({@code replace} and {@code deleteIfUnchanged}): one
 * request each, conditional on that version's seq_no and primary term, and never retried, since esrel cannot decide
 * again for the caller: if the document changed since, a conflict is the outcome. A lost answer is found out as
 * {@link ConditionalWrite} finds it out. Each operation is reported to the listener from its start to its outcome.
 */
final class SeenWrites {

    private final OccCore core;

    SeenWrites(OccCore core) {
        this.core = core;
    }

    /** {@link Occ#get(DocRef, Class)}. */
    <T> Optional<Versioned<T>> get(DocRef doc, Class<T> type) {
        return await(getAsync(doc, type));
    }

    /**
     * {@link #get}, over futures: complete when returned for the blocking form's core. The arguments are checked
     * before it returns.
     */
    <T> CompletableFuture<Optional<Versioned<T>>> getAsync(DocRef doc, Class<T> type) {
        String index = doc.requireIndex();
        String id = doc.id();
        String routing = doc.routing();
        Occ.check(index, id);
        Objects.requireNonNull(type, "type cannot be null");
        return core.readAsync(index, id, routing)
                .thenCompose(got -> {
                    if (got.found()) {
                        DocMeta meta =
                                new DocMeta(got.index(), id, routing, got.seqNo(), got.primaryTerm(), got.version());
                        T value = core.json().toValue(core.writeLog().without(got.source()), type, meta);
                        return CompletableFuture.completedFuture(Optional.of(new Versioned<>(
                                got.index(), id, routing, value, got.seqNo(), got.primaryTerm(), got.version())));
                    }
                    if (!core.routingCheck()) {
                        return CompletableFuture.completedFuture(Optional.<Versioned<T>>empty());
                    }
                    return Errors.wrongRouting(core, index, id, routing).thenApply(wrong -> {
                        if (wrong != null) {
                            throw wrong;
                        }
                        return Optional.<Versioned<T>>empty();
                    });
                })
                .handle((found, failure) -> {
                    if (failure == null) {
                        return found;
                    }
                    Throwable cause = Futures.unwrap(failure);
                    RuntimeException e = cause instanceof ElasticsearchException ee
                            ? Errors.translate("get", index, id, routing, ee)
                            : cause instanceof IOException io
                                    ? Errors.io("get", index, id, routing, io)
                                    : Futures.unchecked(cause);
                    throw Futures.rethrow(core.translate(e));
                });
    }

    /** {@link Occ#tryReplace}. */
    <T> Outcome<T> replace(Versioned<T> seen, T value) {
        return await(replaceAsync(seen, value));
    }

    /** {@link Occ#tryDeleteIfUnchanged}. */
    <T> Outcome<T> deleteIfUnchanged(Versioned<T> seen) {
        return await(deleteIfUnchangedAsync(seen));
    }

    /** {@link #replace}, over futures: complete when returned for the blocking form's core. */
    <T> CompletableFuture<Outcome<T>> replaceAsync(Versioned<T> seen, T value) {
        long start = System.nanoTime();
        Outcome.Operation op = Outcome.Operation.REPLACE;
        core.started(seen.index(), op);
        CompletableFuture<Outcome<T>> outcome;
        try {
            Json json = core.json();
            ObjectNode next = json.toTree(value, seen.index(), seen.id());
            json.checkRouting(value, seen.index(), seen.id(), seen.routing());
            // The stored source, to keep what the class does not map. Read at the version seen or not at all: if the
            // document changed since, the conditional write would conflict anyway.
            outcome = core.readAsync(seen.index(), seen.id(), seen.routing())
                    .handle((got, failure) -> {
                        if (failure == null) {
                            return got;
                        }
                        Throwable cause = Futures.unwrap(failure);
                        if (cause instanceof ElasticsearchException e) {
                            throw Errors.translate("conditional write of", seen.index(), seen.id(), seen.routing(), e);
                        }
                        if (cause instanceof IOException e) {
                            throw Errors.io("conditional write of", seen.index(), seen.id(), seen.routing(), e);
                        }
                        throw Futures.rethrow(cause);
                    })
                    .thenCompose(got -> replaceRead(op, seen, value, next, got, start));
        } catch (RuntimeException e) {
            outcome = CompletableFuture.failedFuture(e);
        }
        return reported(outcome, seen, op, start);
    }

    /** The rest of {@link #replaceAsync} once the document is read. */
    private <T> CompletableFuture<Outcome<T>> replaceRead(
            Outcome.Operation op,
            Versioned<T> seen,
            T value,
            ObjectNode next,
            GetResponse<ObjectNode> got,
            long start) {
        if (!got.found() || got.seqNo() != seen.seqNo() || got.primaryTerm() != seen.primaryTerm()) {
            return CompletableFuture.completedFuture(conflict(op, seen, value, start));
        }
        Json json = core.json();
        // The write log is esrel's, not the caller's: the merge sees the document without it.
        WriteLog log = core.writeLog();
        ObjectNode stored = log.without(got.source());
        DocMeta meta =
                new DocMeta(got.index(), seen.id(), seen.routing(), got.seqNo(), got.primaryTerm(), got.version());
        // What the class gives back of the stored source, mapped afresh: the caller may have changed seen's value in
        // place to make the new one.
        Class<?> type = (seen.value() != null ? seen.value() : value).getClass();
        ObjectNode seenTree = json.toTree(json.toValue(stored, type, meta), seen.index(), seen.id());
        ObjectNode merged = SourceMerge.merge(stored, seenTree, next, meta);
        if (SourceMerge.sameSource(stored, merged)) {
            return CompletableFuture.completedFuture(core.finish(once(op, seen, Outcome.Status.NOOP, value, start)
                    .version(got.seqNo(), got.primaryTerm(), got.version())
                    .build()));
        }
        String writeId = log.newId();
        ObjectNode body = log.with(merged, got.source(), WriteLog.on(seen), writeId);
        return send(
                op,
                "conditional write of",
                seen,
                Outcome.Status.UPDATED,
                value,
                start,
                () -> core.overwriteAsync(seen, body).thenApply(ConditionalWrite.Stored::of),
                writeId);
    }

    /** {@link #deleteIfUnchanged}, over futures: complete when returned for the blocking form's core. */
    <T> CompletableFuture<Outcome<T>> deleteIfUnchangedAsync(Versioned<T> seen) {
        long start = System.nanoTime();
        Outcome.Operation op = Outcome.Operation.DELETE_IF_UNCHANGED;
        core.started(seen.index(), op);
        CompletableFuture<Outcome<T>> outcome;
        try {
            outcome = send(
                    op,
                    "conditional delete of",
                    seen,
                    Outcome.Status.DELETED,
                    seen.value(),
                    start,
                    () -> core.deleteAsync(seen),
                    null);
        } catch (RuntimeException e) {
            outcome = CompletableFuture.failedFuture(e);
        }
        return reported(outcome, seen, op, start);
    }

    /** {@code outcome}, with its failure reported to the listener and translated. */
    private <T> CompletableFuture<Outcome<T>> reported(
            CompletableFuture<Outcome<T>> outcome, Versioned<T> seen, Outcome.Operation op, long start) {
        return outcome.handle((o, failure) -> {
            if (failure != null) {
                throw Futures.rethrow(core.failedOrError(seen.index(), op, start, Futures.unwrap(failure)));
            }
            return o;
        });
    }

    /** The result of a future of the blocking form's core, or the exception it failed with. */
    private static <T> T await(CompletableFuture<T> done) {
        try {
            return Futures.await(done);
        } catch (IOException e) {
            throw new IllegalStateException("an operation turns I/O failures into OccExceptions", e);
        }
    }

    /**
     * Sends the request conditional on {@code seen} until its fate is known.
     *
     * @param writeId the write's id in the write log; {@code null} without one, and for a delete
     */
    private <T> CompletableFuture<Outcome<T>> send(
            Outcome.Operation op,
            String what,
            Versioned<T> seen,
            Outcome.Status status,
            T value,
            long start,
            ConditionalWrite.Request request,
            @Nullable String writeId) {
        boolean delete = op == Outcome.Operation.DELETE_IF_UNCHANGED;
        return ConditionalWrite.send(
                        request,
                        () -> core.currentAsync(seen.index(), seen.id(), seen.routing()),
                        delete ? null : core.writeLog().ifAdding(),
                        seen,
                        writeId,
                        delete)
                .handle((fate, failure) -> {
                    if (failure != null) {
                        Throwable cause = Futures.unwrap(failure);
                        if (cause instanceof ElasticsearchException e) {
                            throw Errors.translate(what, seen.index(), seen.id(), seen.routing(), e);
                        }
                        throw Futures.rethrow(cause);
                    }
                    return fate;
                })
                .thenApply(fate -> {
                    if (fate instanceof ConditionalWrite.Written w) {
                        ConditionalWrite.Stored r = w.stored();
                        T stamped = delete
                                ? value
                                : core.json()
                                        .withMeta(
                                                value,
                                                new DocMeta(
                                                        r.index(),
                                                        seen.id(),
                                                        seen.routing(),
                                                        r.seqNo(),
                                                        r.primaryTerm(),
                                                        r.version()));
                        return core.finish(once(op, seen, status, stamped, start)
                                .version(r.seqNo(), r.primaryTerm(), r.version())
                                .build());
                    }
                    if (fate instanceof ConditionalWrite.Applied) {
                        return core.finish(once(op, seen, status, value, start)
                                .error(ConditionalWrite.APPLIED_UNSEEN)
                                .build());
                    }
                    if (fate instanceof ConditionalWrite.Unknown u) {
                        return core.finish(once(op, seen, Outcome.Status.UNKNOWN, value, start)
                                .error(Errors.unknown(what.replace(" of", ""), u.cause()))
                                .cause(u.cause())
                                .build());
                    }
                    return conflict(op, seen, value, start);
                });
    }

    /** The document changed since {@code seen}: the outcome, not retried. */
    private <T> Outcome<T> conflict(Outcome.Operation op, Versioned<T> seen, T value, long start) {
        core.conflict(seen.index(), seen.id(), 1);
        return core.finish(once(op, seen, Outcome.Status.CONFLICT, value, start)
                .attempts(1, 1)
                .stopReason(StopReason.NOT_RETRYABLE)
                .build());
    }

    /** The outcome of one request on {@code seen}, started at {@code start}. */
    private static <T> Outcome.Builder<T> once(
            Outcome.Operation op, Versioned<T> seen, Outcome.Status status, @Nullable T value, long start) {
        return Outcome.<T>builder(seen.index(), seen.id(), seen.routing(), status)
                .operation(op)
                .value(value)
                .since(start);
    }
}
