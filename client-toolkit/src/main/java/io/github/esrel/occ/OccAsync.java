package io.github.esrel.occ;

import io.github.esrel.doc.DocRef;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The non-blocking form of {@link Occ}: {@code get}, {@code update}, {@code upsert}, {@code deleteIf},
 * {@code replace} and {@code deleteIfUnchanged} (and their {@code try...} variants) return a {@link CompletableFuture}
 * instead of waiting, and no thread waits for them: requests go through elasticsearch-java's
 * {@code ElasticsearchAsyncClient} over the updater's transport, the attempts run on the threads that complete their
 * requests (the low-level client's I/O threads), and the backoff between attempts waits on a timer. Get it from
 * {@link Occ#async()}.
 *
 * <pre>{@code
 * OccAsync occ = Occ.of(b -> b.client(asyncClient)).async();
 * occ.update("designs", "1", Shirt.class, s -> s.withVotes(s.votes() + 1))
 *         .thenAccept(vote -> log.info("stored as seq_no {}", vote.seqNo()));
 * }</pre>
 *
 * <p>It is the same engine as {@link Occ}'s, with the same rules: each method completes with the {@link Outcome} the
 * blocking method of the same name returns, or fails with the exception it throws ({@link OccConflictException},
 * {@link OccUnknownOutcomeException}, an {@link OccException}, a function's own exception unchanged), wrapped as
 * {@code CompletableFuture} wraps failures (a {@link java.util.concurrent.CompletionException} from {@code join()}).
 * Lost answers are handled as there (never applied twice, unknown reported as unknown), the listener and the exception
 * translator of the updater see every operation, and fields the class does not map are kept.
 *
 * <ul>
 *   <li>Write combining: calls of one document made through this object queue behind one conditional write in flight,
 *       as {@link Occ}'s do. A call that completes is completed before the next write takes the queue, so a caller
 *       that chains its next update on the last one's future rides in the next write. Calls of this object and of the
 *       blocking {@link Occ} are combined apart: between the two they conflict like two processes, and are retried.</li>
 *   <li>Where the function runs: on the thread that completed the read (an I/O thread of the client), or on the
 *       caller's, when the write can start from what the last write stored. The function must not block; keep it pure,
 *       as the blocking form asks. The stages a caller chains without an executor run there too: hand blocking work to
 *       an executor of the application's ({@code thenApplyAsync(fn, executor)}).</li>
 *   <li>Arguments are checked before the method returns: a {@code null} or a {@link DocRef} without an index throws
 *       at once, as in the blocking form.</li>
 *   <li>Cancelling a returned future does not withdraw its call: the write may be in flight, and its outcome is still
 *       reported to the listener.</li>
 * </ul>
 *
 * <p>Thread-safe: share the one instance of an {@link Occ}.
 */
public final class OccAsync {

    private final OccCalls calls;
    private final SeenWrites seenWrites;

    OccAsync(OccCore core, boolean combineWrites) {
        this.calls = new OccCalls(core, combineWrites);
        this.seenWrites = new SeenWrites(core);
    }

    /**
     * {@link Occ#get(String, String, Class)} without blocking.
     *
     * @param <T> the caller's document type
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param type the class the source is mapped to
     * @return completes with the document and its version, empty when there is no such document; fails as the
     *     blocking method throws
     */
    public <T> CompletableFuture<Optional<Versioned<T>>> get(String index, String id, Class<T> type) {
        return get(DocRef.of(index, id), type);
    }

    /**
     * {@link Occ#get(DocRef, Class)} without blocking: the document with what a later {@link #replace} or
     * {@link #deleteIfUnchanged} needs (realtime).
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to
     * @return completes with the document and its version, empty when there is no such document; fails as the
     *     blocking method throws
     */
    public <T> CompletableFuture<Optional<Versioned<T>>> get(DocRef doc, Class<T> type) {
        return seenWrites.getAsync(doc, type);
    }

    /**
     * {@link Occ#update(String, String, Class, UnaryOperator)} without blocking.
     *
     * @param <T> the caller's document type
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param type the class the source is mapped to
     * @param fn the pure function from the stored value to the new one; may run once per attempt
     * @return completes with {@code UPDATED}, {@code NOOP} or {@code NOT_FOUND}; fails as the blocking method throws
     */
    public <T> CompletableFuture<Outcome<T>> update(String index, String id, Class<T> type, UnaryOperator<T> fn) {
        return update(DocRef.of(index, id), type, fn);
    }

    /**
     * {@link Occ#update(DocRef, Class, UnaryOperator)} without blocking.
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to
     * @param fn the pure function from the stored value to the new one; may run once per attempt
     * @return completes with {@code UPDATED}, {@code NOOP} or {@code NOT_FOUND}; fails with an
     *     {@link OccConflictException} when the retry policy ran out, an {@link OccUnknownOutcomeException} when the
     *     write's fate is not known, or as the blocking method throws
     */
    public <T> CompletableFuture<Outcome<T>> update(DocRef doc, Class<T> type, UnaryOperator<T> fn) {
        return tryUpdate(doc, type, fn).thenApply(calls::orThrow);
    }

    /**
     * {@link Occ#tryUpdate(DocRef, Class, UnaryOperator)} without blocking.
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to
     * @param fn the pure function from the stored value to the new one; may run once per attempt
     * @return completes with {@code UPDATED}, {@code NOOP}, {@code NOT_FOUND}, {@code CONFLICT} or {@code UNKNOWN}
     */
    public <T> CompletableFuture<Outcome<T>> tryUpdate(DocRef doc, Class<T> type, UnaryOperator<T> fn) {
        return calls.callAsync(Outcome.Operation.UPDATE, doc, type, null, fn, null);
    }

    /**
     * {@link Occ#upsert(String, String, Class, Supplier, UnaryOperator)} without blocking.
     *
     * @param <T> the caller's document type
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param type the class the source is mapped to
     * @param initial the value a missing document starts from; {@code fn} is applied to it
     * @param fn the pure function from the stored (or initial) value to the new one
     * @return completes with {@code CREATED}, {@code UPDATED} or {@code NOOP}; fails as the blocking method throws
     */
    public <T> CompletableFuture<Outcome<T>> upsert(
            String index, String id, Class<T> type, Supplier<T> initial, UnaryOperator<T> fn) {
        return upsert(DocRef.of(index, id), type, initial, fn);
    }

    /**
     * {@link Occ#upsert(DocRef, Class, Supplier, UnaryOperator)} without blocking.
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to
     * @param initial the value a missing document starts from; {@code fn} is applied to it
     * @param fn the pure function from the stored (or initial) value to the new one
     * @return completes with {@code CREATED}, {@code UPDATED} or {@code NOOP}; fails as the blocking method throws
     */
    public <T> CompletableFuture<Outcome<T>> upsert(
            DocRef doc, Class<T> type, Supplier<T> initial, UnaryOperator<T> fn) {
        return tryUpsert(doc, type, initial, fn).thenApply(calls::orThrow);
    }

    /**
     * {@link Occ#tryUpsert(DocRef, Class, Supplier, UnaryOperator)} without blocking.
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to
     * @param initial the value a missing document starts from; {@code fn} is applied to it
     * @param fn the pure function from the stored (or initial) value to the new one
     * @return completes with {@code CREATED}, {@code UPDATED}, {@code NOOP}, {@code CONFLICT} or {@code UNKNOWN}
     */
    public <T> CompletableFuture<Outcome<T>> tryUpsert(
            DocRef doc, Class<T> type, Supplier<T> initial, UnaryOperator<T> fn) {
        return calls.callAsync(Outcome.Operation.UPSERT, doc, type, initial, fn, null);
    }

    /**
     * {@link Occ#deleteIf(String, String, Class, Predicate)} without blocking.
     *
     * @param <T> the caller's document type
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param type the class the source is mapped to
     * @param condition tested on the stored value; the document is deleted only if it holds
     * @return completes with {@code DELETED}, {@code NOOP} or {@code NOT_FOUND}; fails as the blocking method throws
     */
    public <T> CompletableFuture<Outcome<T>> deleteIf(
            String index, String id, Class<T> type, Predicate<? super T> condition) {
        return deleteIf(DocRef.of(index, id), type, condition);
    }

    /**
     * {@link Occ#deleteIf(DocRef, Class, Predicate)} without blocking.
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to
     * @param condition tested on the stored value; the document is deleted only if it holds
     * @return completes with {@code DELETED}, {@code NOOP} or {@code NOT_FOUND}; fails as the blocking method throws
     */
    public <T> CompletableFuture<Outcome<T>> deleteIf(DocRef doc, Class<T> type, Predicate<? super T> condition) {
        return tryDeleteIf(doc, type, condition).thenApply(calls::orThrow);
    }

    /**
     * {@link Occ#tryDeleteIf(DocRef, Class, Predicate)} without blocking.
     *
     * @param <T> the caller's document type
     * @param doc the document: index, id and the routing value it was written with
     * @param type the class the source is mapped to
     * @param condition tested on the stored value; the document is deleted only if it holds
     * @return completes with {@code DELETED}, {@code NOOP}, {@code NOT_FOUND}, {@code CONFLICT} or {@code UNKNOWN}
     */
    public <T> CompletableFuture<Outcome<T>> tryDeleteIf(DocRef doc, Class<T> type, Predicate<? super T> condition) {
        return calls.callAsync(Outcome.Operation.DELETE_IF, doc, type, null, null, condition);
    }

    /**
     * {@link Occ#replace(Versioned, Object)} without blocking: one conditional write of a value the caller computed
     * from {@code seen}, never retried.
     *
     * @param <T> the caller's document type
     * @param seen the document as read; its index, id and routing address the write
     * @param value the new value, whose changes from {@code seen} are written onto the stored source
     * @return completes with {@code UPDATED} or {@code NOOP}; fails with an {@link OccConflictException} when the
     *     document changed since {@code seen}, or as the blocking method throws
     */
    public <T> CompletableFuture<Outcome<T>> replace(Versioned<T> seen, T value) {
        return tryReplace(seen, value).thenApply(calls::orThrow);
    }

    /**
     * {@link Occ#tryReplace(Versioned, Object)} without blocking.
     *
     * @param <T> the caller's document type
     * @param seen the document as read; its index, id and routing address the write
     * @param value the new value, whose changes from {@code seen} are written onto the stored source
     * @return completes with {@code UPDATED}, {@code NOOP}, {@code CONFLICT} or {@code UNKNOWN}
     */
    public <T> CompletableFuture<Outcome<T>> tryReplace(Versioned<T> seen, T value) {
        Objects.requireNonNull(seen, "seen cannot be null");
        Objects.requireNonNull(value, "value cannot be null");
        return seenWrites.replaceAsync(seen, value);
    }

    /**
     * {@link Occ#deleteIfUnchanged(Versioned)} without blocking.
     *
     * @param <T> the caller's document type
     * @param seen the document as read
     * @return completes with {@code DELETED}; fails with an {@link OccConflictException} when the document changed
     *     since {@code seen}, or as the blocking method throws
     */
    public <T> CompletableFuture<Outcome<T>> deleteIfUnchanged(Versioned<T> seen) {
        return tryDeleteIfUnchanged(seen).thenApply(calls::orThrow);
    }

    /**
     * {@link Occ#tryDeleteIfUnchanged(Versioned)} without blocking.
     *
     * @param <T> the caller's document type
     * @param seen the document as read
     * @return completes with {@code DELETED}, {@code CONFLICT} or {@code UNKNOWN}
     */
    public <T> CompletableFuture<Outcome<T>> tryDeleteIfUnchanged(Versioned<T> seen) {
        Objects.requireNonNull(seen, "seen cannot be null");
        return seenWrites.deleteIfUnchangedAsync(seen);
    }

    @Override
    public String toString() {
        return "OccAsync{combineWrites=" + calls.combining() + '}';
    }
}
