package io.github.esrel.occ;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.GetResponse;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.Futures;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The read-modify-write calls ({@code update}, {@code upsert} and {@code deleteIf}) of one {@link Occ}, from the
 * caller's call to its {@link Outcome}: each {@link OccCall} runs attempts under its own retry policy, alone or
 * combined with other callers' calls of the same document in a {@link WriteCombiner}, which hands the calls
 * queued for one document to {@link #attempt} as a batch. A single uncombined call is a batch of one.
 *
 * <p>One attempt: one realtime read (or, while the document stays busy, what the last attempt wrote: see
 * {@link #attempt}), every call's function applied in order to the freshest value (each to the value the call
 * before it produced), and one write conditional on the seq_no/primary term read; or, for a conditional delete,
 * which always runs alone, the test and the conditional delete.
 *
 * <p>Each call gets its own verdict: a function that throws (or maps or serializes badly) fails only its call;
 * one that changes nothing is {@code NOOP}; an update of a missing document is {@code NOT_FOUND}; the upsert that
 * finds the document missing starts from its initial value and is {@code CREATED}, and the calls after it in the
 * same write are {@code UPDATED} on top of it. The write happens when any call changed the value (so every
 * {@code UPDATED} call has a stored version containing its change, even if a later call undid it); its seq_no,
 * primary term and version go to every call it carried. A conflict (409) or a retryable failure of the read or
 * the write is charged to every call still in the attempt, each under its own retry policy: those allowed another
 * attempt are left for it, the others end.
 *
 * <p>Both forms of the API run these rules: an attempt is a chain of futures over its core's {@link Sender}. For the
 * blocking form ({@link #run}) every request is sent on the caller's thread and the chain is complete when
 * {@link #attempt} returns; for the non-blocking form ({@link #runAsync}) each step runs on the thread that completed
 * the request before it, and the backoff waits on a timer.
 */
final class OccCalls implements WriteCombiner.Runner<OccCall<?>> {

    private static final CompletableFuture<Boolean> DECIDED = CompletableFuture.completedFuture(true);
    private static final CompletableFuture<Boolean> NOT_DECIDED = CompletableFuture.completedFuture(false);
    private static final CompletableFuture<Duration> NO_WAIT = CompletableFuture.completedFuture(Duration.ZERO);

    private final OccCore core;
    private final Json json;
    /** Null when write combining is off. */
    private final @Nullable WriteCombiner<DocRef, OccCall<?>> combiner;
    /** Writes add their entry with {@link Occ.Builder#writeLog}; the field is kept as stored without it. */
    private final WriteLog log;

    OccCalls(OccCore core, boolean combineWrites) {
        this.core = core;
        this.json = core.json();
        this.log = core.writeLog();
        this.combiner = combineWrites
                ? new WriteCombiner<>(
                        this,
                        core.retryPolicy().sleeper(),
                        System::nanoTime,
                        WriteCombiner.DEFAULT_MAX_BATCH,
                        WriteCombiner.DEFAULT_MAX_LINGER)
                : null;
    }

    /**
     * One operation of the API, as its listener sees it: the arguments checked, its start, then {@link #run} and its
     * outcome or failure (translated).
     */
    <T> Outcome<T> call(
            Outcome.Operation op,
            DocRef doc,
            Class<T> type,
            @Nullable Supplier<T> initial,
            @Nullable UnaryOperator<T> fn,
            @Nullable Predicate<? super T> deleteIf) {
        String index = checked(op, doc, initial, fn, deleteIf);
        long start = System.nanoTime();
        core.started(index, op);
        Outcome<T> outcome;
        try {
            outcome = run(doc, type, initial, fn, deleteIf);
        } catch (RuntimeException e) {
            throw core.failed(index, op, start, e);
        }
        return core.finish(outcome);
    }

    /** {@link #call} without blocking ({@link #runAsync}); the arguments are checked before it returns. */
    <T> CompletableFuture<Outcome<T>> callAsync(
            Outcome.Operation op,
            DocRef doc,
            Class<T> type,
            @Nullable Supplier<T> initial,
            @Nullable UnaryOperator<T> fn,
            @Nullable Predicate<? super T> deleteIf) {
        String index = checked(op, doc, initial, fn, deleteIf);
        long start = System.nanoTime();
        core.started(index, op);
        return runAsync(doc, type, initial, fn, deleteIf).handle((outcome, failure) -> {
            if (failure != null) {
                throw Futures.rethrow(core.failedOrError(index, op, start, Futures.unwrap(failure)));
            }
            return core.finish(outcome);
        });
    }

    /** {@link Outcome#orThrow()}, with the exception it throws translated. */
    <T> Outcome<T> orThrow(Outcome<T> outcome) {
        return core.orThrow(outcome);
    }

    /** The index of {@code doc}, after the checks of the arguments every form of the API makes before anything. */
    private static String checked(
            Outcome.Operation op,
            DocRef doc,
            @Nullable Supplier<?> initial,
            @Nullable UnaryOperator<?> fn,
            @Nullable Predicate<?> deleteIf) {
        Objects.requireNonNull(doc, "doc cannot be null");
        if (op == Outcome.Operation.DELETE_IF) {
            Objects.requireNonNull(deleteIf, "condition cannot be null");
        } else {
            if (op == Outcome.Operation.UPSERT) {
                Objects.requireNonNull(initial, "initial cannot be null");
            }
            Objects.requireNonNull(fn, "fn cannot be null");
        }
        String index = doc.requireIndex();
        Occ.check(index, doc.id());
        return index;
    }

    /**
     * Runs one call to its end: queued behind the other calls of its document, or in a loop of its own.
     *
     * @param initial the upsert's initial value, else {@code null}
     * @param fn the update function, {@code null} for a conditional delete
     * @param deleteIf the condition of a conditional delete, else {@code null}
     * @throws RuntimeException the call's failure (a function's own exception unchanged)
     */
    <T> Outcome<T> run(
            DocRef doc,
            Class<T> type,
            @Nullable Supplier<T> initial,
            @Nullable UnaryOperator<T> fn,
            @Nullable Predicate<? super T> deleteIf) {
        OccCall<T> call = new OccCall<>(doc, type, initial, fn, deleteIf, core.retryPolicy(), core.routingCheck());
        if (combiner != null && !WriteCombiner.insideAttempt()) {
            combiner.submit(doc, call);
        } else {
            // Uncombined (switched off, or called from inside a combined attempt, which must not wait for itself).
            List<OccCall<?>> alone = List.of(call);
            WriteCombiner.Memo memo = new WriteCombiner.Memo();
            while (!call.finished()) {
                Duration wait;
                try {
                    wait = Futures.await(attempt(alone, memo)); // complete: the blocking sender sent on this thread
                } catch (IOException e) {
                    throw new IllegalStateException("an attempt turns I/O failures into its calls' failures", e);
                }
                if (!call.finished() && !call.attempts.sleep(wait)) {
                    call.stop(StopReason.INTERRUPTED);
                }
            }
        }
        return call.result();
    }

    /**
     * {@link #run}, without blocking: the attempts run on the threads that complete their requests (the async client's
     * I/O threads) and the backoff on a timer, so no thread waits for the call. Combined as {@link #run} combines, in
     * lanes of this instance's own.
     *
     * @return completes with the outcome, or fails with what {@link #run} throws
     */
    <T> CompletableFuture<Outcome<T>> runAsync(
            DocRef doc,
            Class<T> type,
            @Nullable Supplier<T> initial,
            @Nullable UnaryOperator<T> fn,
            @Nullable Predicate<? super T> deleteIf) {
        OccCall<T> call = new OccCall<>(doc, type, initial, fn, deleteIf, core.retryPolicy(), core.routingCheck());
        CompletableFuture<@Nullable Void> done =
                combiner != null ? combiner.submitAsync(doc, call) : alone(call, new WriteCombiner.Memo());
        return done.handle((ignored, failure) -> {
            if (failure != null && !call.finished()) {
                call.crash = Futures.unwrap(failure); // as the combiner fails an operation whose attempt threw
            }
            return call.result();
        });
    }

    /** Attempts of one uncombined call, one after another, waiting the backoff on a timer. */
    private CompletableFuture<@Nullable Void> alone(OccCall<?> call, WriteCombiner.Memo memo) {
        return attempt(List.of(call), memo)
                .thenCompose(wait -> call.finished()
                        ? Futures.done()
                        : Futures.delay(wait).thenCompose(ignored -> alone(call, memo)));
    }

    /** Whether calls are combined. */
    boolean combining() {
        return combiner != null;
    }

    /** Calls of {@code doc} waiting for or carried by a combined write now; 0 when combining is off. */
    int pending(DocRef doc) {
        return combiner == null ? 0 : combiner.pending(doc);
    }

    /**
     * One attempt. While a document stays busy (and for {@link WriteCombiner#MEMO_GRACE} after), the next attempt
     * starts from what the last one wrote (the lane's {@code memo}: the source and the seq_no/primary term the write
     * returned) instead of reading it again: the conditional write proves that nothing changed it since, and when
     * something did (another process), the attempt reads the document and applies the functions again. An attempt
     * from the memo that would write nothing, or that a function failed, reads too: only a write proves the memo was
     * current, so neither a {@code NOOP} nor a function's failure is decided on it.
     */
    @Override
    public CompletableFuture<Duration> attempt(List<OccCall<?>> batch, WriteCombiner.Memo memo) {
        OccCall<?> first = batch.get(0);
        Versioned<ObjectNode> last = first.deleteIf == null ? memo.get() : null;
        CompletableFuture<Boolean> fromMemo;
        if (last == null) {
            fromMemo = NOT_DECIDED;
        } else {
            fromMemo = combined(batch, last, null, memo, true).thenCompose(decided -> {
                if (decided) {
                    return DECIDED;
                }
                Versioned<ObjectNode> checked = memo.get(); // read after the conflict by the write log's check
                memo.set(null);
                if (checked != null && checked != last) {
                    return combined(batch, checked, null, memo, false).thenApply(ended -> true);
                }
                return NOT_DECIDED;
            });
        }
        return fromMemo.thenCompose(decided -> decided ? NO_WAIT : readAndRun(batch, memo))
                .handle((wait, failure) -> {
                    if (failure == null) {
                        return wait;
                    }
                    Throwable cause = Futures.unwrap(failure);
                    if (cause instanceof ElasticsearchException e) {
                        if (e.status() != 409) {
                            memo.set(null); // a conflict may have left the read made after it, for the next attempt
                        }
                        return failed(batch, e);
                    }
                    if (cause instanceof IOException e) {
                        memo.set(null);
                        for (OccCall<?> call : batch) {
                            if (!call.finished()) {
                                call.fail(Errors.io(call.what(), first.index(), first.id(), first.routing(), e));
                            }
                        }
                        return Duration.ZERO;
                    }
                    throw Futures.rethrow(cause);
                });
    }

    /** The attempt's read, then the functions (or the delete's test) and the write. */
    private CompletableFuture<Duration> readAndRun(List<OccCall<?>> batch, WriteCombiner.Memo memo) {
        memo.set(null);
        OccCall<?> first = batch.get(0);
        String index = first.index();
        String id = first.id();
        String routing = first.routing();
        return core.readAsync(index, id, routing)
                .handle((got, failure) -> {
                    if (failure == null) {
                        return new Read(got, null);
                    }
                    Throwable cause = Futures.unwrap(failure);
                    if (cause instanceof ElasticsearchException e
                            && e.status() == 404
                            && Reasons.hasType(e, "index_not_found_exception")
                            && batch.stream().anyMatch(c -> c.initial != null)) {
                        // An upsert creates the document (and the index, if the cluster auto-creates).
                        return new Read(null, e);
                    }
                    throw Futures.rethrow(cause);
                })
                .thenCompose(r -> {
                    boolean found = r.got() != null && r.got().found();
                    if (found || batch.stream().allMatch(c -> c.routingChecked)) {
                        return decide(batch, r, memo);
                    }
                    batch.forEach(c -> c.routingChecked = true);
                    return Errors.wrongRouting(core, index, id, routing).thenCompose(wrong -> {
                        if (wrong != null) {
                            batch.forEach(c -> c.fail(new OccException(wrong.getMessage(), wrong.status(), null)));
                            return NO_WAIT;
                        }
                        return decide(batch, r, memo);
                    });
                });
    }

    /** What the attempt read: the answer, or the missing index an upsert creates. */
    private record Read(
            @Nullable GetResponse<ObjectNode> got, @Nullable ElasticsearchException noIndex) {}

    private CompletableFuture<Duration> decide(List<OccCall<?>> batch, Read r, WriteCombiner.Memo memo) {
        OccCall<?> first = batch.get(0);
        GetResponse<ObjectNode> got = r.got();
        // The document as read, what the conditional write or delete is conditional on; null when missing.
        Versioned<ObjectNode> read = got != null && got.found()
                ? new Versioned<>(
                        got.index(),
                        first.id(),
                        first.routing(),
                        got.source(),
                        got.seqNo(),
                        got.primaryTerm(),
                        got.version())
                : null;
        CompletableFuture<?> decided =
                first.deleteIf != null ? deleteIf(first, read) : combined(batch, read, r.noIndex(), memo, false);
        return decided.thenApply(ended -> Duration.ZERO);
    }

    private <T> CompletableFuture<@Nullable Void> deleteIf(OccCall<T> call, @Nullable Versioned<ObjectNode> read) {
        if (read == null) {
            call.done(call.outcome(call.index(), Outcome.Status.NOT_FOUND).build());
            return Futures.done();
        }
        Predicate<? super T> condition = Objects.requireNonNull(call.deleteIf, "a conditional delete has a condition");
        T current;
        try {
            current = json.toValue(log.without(read.value()), call.type, meta(read));
            call.last = current;
            if (!condition.test(current)) {
                call.done(call.outcome(read.index(), Outcome.Status.NOOP)
                        .value(current)
                        .version(read.seqNo(), read.primaryTerm(), read.version())
                        .build());
                return Futures.done();
            }
        } catch (RuntimeException e) {
            call.fail(e);
            return Futures.done();
        }
        return ConditionalWrite.send(() -> core.deleteAsync(read), () -> readNow(call), null, read, null, true)
                .thenApply(fate -> {
                    if (fate instanceof ConditionalWrite.NotApplied n) {
                        throw n.conflict(); // changed since: read and test again
                    }
                    if (fate instanceof ConditionalWrite.Unknown u) {
                        call.unknown(u.cause());
                        return null;
                    }
                    ConditionalWrite.Stored d = ((ConditionalWrite.Written) fate).stored();
                    call.done(call.outcome(read.index(), Outcome.Status.DELETED)
                            .value(current)
                            .version(d.seqNo(), d.primaryTerm(), d.version())
                            .build());
                    return null;
                });
    }

    /**
     * Applies the batch's functions to {@code read} and writes the result conditionally on it, then ends every call.
     *
     * @param read the document the attempt starts from; {@code null} when it is missing
     * @param fromMemo true when {@code read} is what the last attempt wrote, not a read
     * @return completes with false, with no call ended, when the attempt started from the memo and cannot decide on it
     *     (see {@link #attempt}): the caller reads the document and tries again; fails with the write's failure (an
     *     {@link ElasticsearchException}), when the calls whose functions failed have ended with their failure
     */
    private CompletableFuture<Boolean> combined(
            List<OccCall<?>> batch,
            @Nullable Versioned<ObjectNode> read,
            @Nullable ElasticsearchException noIndex,
            WriteCombiner.Memo memo,
            boolean fromMemo) {
        OccCall<?> first = batch.get(0);
        // The write log is esrel's, not the caller's: the functions and the merge see the document without it.
        ObjectNode stored = read == null ? null : log.without(read.value());
        // A document created by an earlier call of this write has no versions yet.
        DocMeta meta = read == null ? DocMeta.of(first.index(), first.id(), first.routing()) : meta(read);
        ObjectNode current = stored;
        boolean changed = false;
        boolean failures = false;
        for (OccCall<?> call : batch) {
            call.afterChange = changed;
            call.attemptFailure = null;
            ObjectNode next = apply(call, current, meta, noIndex);
            if (call.attemptFailure != null) {
                failures = true;
            } else if (call.status != Outcome.Status.NOOP && call.status != Outcome.Status.NOT_FOUND) {
                changed = true;
                current = next;
            }
        }
        if (fromMemo && (!changed || failures)) {
            return NOT_DECIDED;
        }
        if (!changed) {
            memo.set(read);
            ended(batch, null, read);
            return DECIDED;
        }
        int carried = 0;
        for (OccCall<?> call : batch) {
            carried += call.finished() || call.attemptFailure != null ? 0 : 1;
        }
        if (carried > 1) {
            core.combinedWrite(first.index(), carried);
        }
        if (current == null) {
            throw new IllegalStateException("a changed document without a source"); // a changed call returned one
        }
        String writeId = log.newId();
        ObjectNode tree = log.with(current, read == null ? null : read.value(), WriteLog.on(read), writeId);
        Versioned<ObjectNode> base = stored == null ? null : read;
        return ConditionalWrite.send(
                        () -> base == null
                                ? core.createAsync(first.index(), first.id(), first.routing(), tree)
                                : core.overwriteAsync(base, tree).thenApply(ConditionalWrite.Stored::of),
                        () -> readNow(first),
                        log.ifAdding(),
                        base,
                        writeId,
                        false)
                .handle((fate, failure) -> {
                    if (failure != null) {
                        endFailed(batch); // a refusal that says nothing was written, or a bug
                        throw Futures.rethrow(failure);
                    }
                    if (fate instanceof ConditionalWrite.Applied a) {
                        memo.set(a.now());
                        endFailed(batch);
                        endAppliedUnseen(batch, read);
                        return true;
                    }
                    if (fate instanceof ConditionalWrite.NotApplied n) {
                        memo.set(n.now()); // the next attempt starts from the document as read, if it was
                        if (fromMemo) {
                            return false; // changed by another process since this one wrote it
                        }
                        endFailed(batch);
                        throw n.conflict();
                    }
                    if (fate instanceof ConditionalWrite.Unknown u) {
                        memo.set(null);
                        endFailed(batch);
                        endUnknown(batch, u.cause());
                        return true;
                    }
                    ConditionalWrite.Stored written = ((ConditionalWrite.Written) fate).stored();
                    memo.set(new Versioned<>(
                            written.index(),
                            first.id(),
                            first.routing(),
                            tree,
                            written.seqNo(),
                            written.primaryTerm(),
                            written.version()));
                    ended(batch, written, read);
                    return true;
                });
    }

    /** Ends the calls of an attempt that is over: those whose function failed, then the others as it decided. */
    private void ended(
            List<OccCall<?>> batch, ConditionalWrite.@Nullable Stored written, @Nullable Versioned<ObjectNode> read) {
        endFailed(batch);
        for (OccCall<?> call : batch) {
            if (!call.finished()) {
                end(call, written, read);
            }
        }
    }

    /** The document of {@code call} now, realtime; {@code null} when it does not exist. */
    private CompletableFuture<@Nullable Versioned<ObjectNode>> readNow(OccCall<?> call) {
        return core.currentAsync(call.index(), call.id(), call.routing());
    }

    /**
     * Ends every call still open as its write's verdict says, after the write log showed the write applied although
     * its answer was a conflict (its own replay): the seq_no it got is not known, later writes may have followed.
     */
    private void endAppliedUnseen(List<OccCall<?>> batch, @Nullable Versioned<ObjectNode> read) {
        for (OccCall<?> call : batch) {
            if (!call.finished()) {
                call.appliedUnseen(read);
            }
        }
    }

    /**
     * Ends every call still open with {@code UNKNOWN}: the write that carried them was sent and its fate is not known
     * ({@code e}). Not retried: a retry could apply it twice.
     */
    private static void endUnknown(List<OccCall<?>> batch, Exception e) {
        for (OccCall<?> call : batch) {
            if (!call.finished()) {
                call.unknown(e);
            }
        }
    }

    /** Ends the calls whose function (or mapping) failed in this attempt with their failure. */
    private static void endFailed(List<OccCall<?>> batch) {
        for (OccCall<?> call : batch) {
            if (!call.finished() && call.attemptFailure != null) {
                call.fail(call.attemptFailure);
            }
        }
    }

    /**
     * Applies one call's function to {@code current}; returns the source after it (or records the call's failure in
     * {@code attemptFailure}). What the
     * class does not map of {@code current} stays (see {@link SourceMerge}).
     *
     * @param meta the document as read (without versions when an earlier call of the write created it)
     */
    private <T> @Nullable ObjectNode apply(
            OccCall<T> call, @Nullable ObjectNode current, DocMeta meta, @Nullable ElasticsearchException noIndex) {
        try {
            UnaryOperator<T> fn = Objects.requireNonNull(call.fn, "an update or upsert has a function");
            if (current == null) {
                if (call.initial == null) {
                    if (noIndex != null) {
                        call.attemptFailure =
                                Errors.translate(call.what(), call.index(), call.id(), call.routing(), noIndex);
                    }
                    call.status = Outcome.Status.NOT_FOUND;
                    return null;
                }
                T created = Objects.requireNonNull(
                        fn.apply(Objects.requireNonNull(call.initial.get(), "initial value supplier returned null")),
                        "the update function returned null");
                call.last = created;
                ObjectNode tree = json.toTree(created, call.index(), call.id());
                json.checkRouting(created, call.index(), call.id(), call.routing());
                call.status = Outcome.Status.CREATED;
                return tree;
            }
            T value = json.toValue(current, call.type, meta);
            // What the class gives back of the source, written before the function runs: it may change its argument.
            ObjectNode seen = json.toTree(value, call.index(), call.id());
            T next = Objects.requireNonNull(fn.apply(value), "the update function returned null");
            call.last = next;
            ObjectNode tree = json.toTree(next, call.index(), call.id());
            ObjectNode merged =
                    SourceMerge.sameSource(seen, tree) ? current : SourceMerge.merge(current, seen, tree, meta);
            if (merged == current || SourceMerge.sameSource(current, merged)) {
                call.status = Outcome.Status.NOOP;
                return current;
            }
            json.checkRouting(next, call.index(), call.id(), call.routing());
            call.status = Outcome.Status.UPDATED;
            return merged;
        } catch (RuntimeException e) {
            call.attemptFailure = e; // ended once the attempt is decided (see combined)
            return current;
        }
    }

    /**
     * The outcome of a call whose attempt is over: {@code NOT_FOUND}; {@code NOOP} with the version read, or the
     * version written when an earlier call of the write changed what it saw; else the write's.
     *
     * @param written the attempt's write; {@code null} when no call changed the value (then every call still open
     *     is {@code NOT_FOUND}, or {@code NOOP} on the value read)
     * @param read the document as read; {@code null} when it was missing
     */
    private <T> void end(
            OccCall<T> call, ConditionalWrite.@Nullable Stored written, @Nullable Versioned<ObjectNode> read) {
        if (call.status == Outcome.Status.NOT_FOUND) {
            call.done(call.outcome(call.index(), Outcome.Status.NOT_FOUND).build());
        } else if (call.status == Outcome.Status.NOOP && !call.afterChange && read != null) {
            call.done(call.outcome(read.index(), Outcome.Status.NOOP)
                    .value(call.last)
                    .version(read.seqNo(), read.primaryTerm(), read.version())
                    .build());
        } else {
            // A call that is neither NOT_FOUND nor a NOOP on the value read changed the value: the attempt wrote.
            Objects.requireNonNull(written, "a changed value without a write");
            DocMeta stored = new DocMeta(
                    written.index(),
                    call.id(),
                    call.routing(),
                    written.seqNo(),
                    written.primaryTerm(),
                    written.version());
            call.done(call.outcome(
                            written.index(), Objects.requireNonNull(call.status, "a decided attempt has a verdict"))
                    .value(json.withMeta(call.last, stored))
                    .version(written.seqNo(), written.primaryTerm(), written.version())
                    .build());
        }
    }

    private static DocMeta meta(Versioned<ObjectNode> read) {
        return new DocMeta(read.index(), read.id(), read.routing(), read.seqNo(), read.primaryTerm(), read.version());
    }

    /** A failure of the read or the write, charged to every call the attempt carried. */
    private Duration failed(List<OccCall<?>> batch, ElasticsearchException e) {
        Duration wait = Duration.ZERO;
        boolean conflict = e.status() == 409;
        for (OccCall<?> call : batch) {
            if (call.finished()) {
                continue;
            }
            call.lastFailure = e;
            if (conflict) {
                call.conflicts++;
                core.conflict(call.index(), call.id(), call.attempts.attempt());
            } else if (!core.retryPolicy().retryOn().test(e)) {
                call.fail(Errors.translate(call.what(), call.index(), call.id(), call.routing(), e));
                continue;
            }
            Optional<Duration> delay = call.attempts.onFailure(e);
            if (delay.isPresent()) {
                wait = delay.get().compareTo(wait) > 0 ? delay.get() : wait;
            } else {
                call.stop(call.attempts.stopReason());
            }
        }
        return wait;
    }
}
