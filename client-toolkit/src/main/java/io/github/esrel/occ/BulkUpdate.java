package io.github.esrel.occ;

import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.Checks;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.retry.StopReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Optimistic updates of many documents at once: each round reads the pending documents with one
 * {@code _mget} per batch, applies each item's function and writes the changed documents with one
 * {@code _bulk} per batch, every write conditional on the seq_no/primary term just read. Items that
 * meet a version conflict (or a 429) stay pending and only they are re-read in the next round, after
 * the policy's backoff; the rest are done. Each item has its own attempt count under the retry policy.
 *
 * <pre>{@code
 * BulkOutcome<Shirt> done = occ.bulk(Shirt.class)
 *     .update("designs", "1", null, s -> s.withVotes(s.votes() + 1))
 *     .upsert("designs", "2", null, () -> new Shirt("new", 0), s -> s.withVotes(s.votes() + 1))
 *     .listener(myListener)
 *     .execute();
 * }</pre>
 *
 * <p>Items keep their own routing. Several items for the same document (index as given, id and routing) are
 * combined, as {@link Occ} combines concurrent calls: each round reads the document once, applies their
 * functions in the order the items were added, each to the value the one before left, and writes the last value
 * once; each item's outcome carries its own function's value and the seq_no/version of the write that stored it
 * (an upsert that made the document is {@code CREATED}, the items after it {@code UPDATED}). They never conflict
 * with one another; a conflict with another writer retries them together. A function that throws makes its
 * item {@code FAILED} (the exception's message in {@link Outcome#error()}) without stopping the others; the
 * next item of its document starts from the value before it.
 * A write request that was sent and met a connection failure or a server error that does not say it was refused
 * (for the request or an item) makes its items {@link Outcome.Status#UNKNOWN}: they may or may not have been
 * applied, and are not sent again, which could apply them twice; the other items go on. A read that fails as a whole,
 * or a refusal of the whole write request (other than 429), stops the job with an {@link OccException}; items
 * written before stay written.
 *
 * <p>Not thread-safe: build and execute on one thread; the builder can be executed once.
 *
 * @param <T> the caller's document type, the one given to {@link Occ#bulk(Class)}
 */
public final class BulkUpdate<T> {

    /** Default documents per {@code _mget} and per {@code _bulk} request. */
    public static final int DEFAULT_BATCH_SIZE = 500;

    private final OccCore core;
    private final Class<T> type;
    private final List<BulkItem<T>> items = new ArrayList<>();
    private BulkUpdateListener listener = BulkUpdateListener.NO_OP;
    private RetryPolicy policy;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private boolean executed;

    BulkUpdate(OccCore core, Class<T> type) {
        this.core = core;
        this.type = type;
        this.policy = core.retryPolicy();
    }

    /**
     * Adds a document routed by its id to update with {@code fn} (nothing happens if it does not exist:
     * NOT_FOUND).
     *
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param fn the pure function from the stored value to the new one; may run once per round the item
     *     is retried and must not return {@code null}
     * @return this builder
     * @throws IllegalArgumentException if {@code index} is blank or {@code id} is empty
     * @throws NullPointerException if {@code fn} is {@code null}
     */
    public BulkUpdate<T> update(String index, String id, UnaryOperator<T> fn) {
        return update(DocRef.of(index, id), fn);
    }

    /**
     * Adds a document to update with {@code fn} (nothing happens if it does not exist: NOT_FOUND).
     *
     * @param doc the document: index, id and the routing value it was written with
     * @param fn the pure function from the stored value to the new one; may run once per round the item
     *     is retried and must not return {@code null}
     * @return this builder
     * @throws IllegalArgumentException if {@code doc} names no index
     * @throws NullPointerException if {@code doc} or {@code fn} is {@code null}
     */
    public BulkUpdate<T> update(DocRef doc, UnaryOperator<T> fn) {
        Objects.requireNonNull(doc, "doc cannot be null");
        return add(doc.requireIndex(), doc, null, Objects.requireNonNull(fn, "fn cannot be null"));
    }

    /**
     * Adds a document routed by its id to create with {@code fn.apply(initial.get())} if absent, else update
     * with {@code fn}.
     *
     * @param index the index (or alias) of the document
     * @param id the document id
     * @param initial supplies the value to start from when the document does not exist
     * @param fn the pure function applied to the stored value, or to the initial one
     * @return this builder
     * @throws IllegalArgumentException if {@code index} is blank or {@code id} is empty
     * @throws NullPointerException if {@code initial} or {@code fn} is {@code null}
     */
    public BulkUpdate<T> upsert(String index, String id, Supplier<T> initial, UnaryOperator<T> fn) {
        return upsert(DocRef.of(index, id), initial, fn);
    }

    /**
     * Adds a document to create with {@code fn.apply(initial.get())} if absent, else update with {@code fn}.
     * A missing index is treated as a missing document.
     *
     * @param doc the document: index, id and the routing value it is written with
     * @param initial supplies the value to start from when the document does not exist; must not
     *     return {@code null}
     * @param fn the pure function applied to the stored value, or to the initial one; may run once per
     *     round the item is retried and must not return {@code null}
     * @return this builder
     * @throws IllegalArgumentException if {@code doc} names no index
     * @throws NullPointerException if {@code doc}, {@code initial} or {@code fn} is {@code null}
     */
    public BulkUpdate<T> upsert(DocRef doc, Supplier<T> initial, UnaryOperator<T> fn) {
        Objects.requireNonNull(doc, "doc cannot be null");
        return add(
                doc.requireIndex(),
                doc,
                Objects.requireNonNull(initial, "initial cannot be null"),
                Objects.requireNonNull(fn, "fn cannot be null"));
    }

    /** Adds an item of {@code doc}, whose index the caller checked first (so a bad index is reported first). */
    private BulkUpdate<T> add(String index, DocRef doc, @Nullable Supplier<T> initial, UnaryOperator<T> fn) {
        items.add(new BulkItem<>(items.size(), index, doc.id(), doc.routing(), initial, fn));
        return this;
    }

    /**
     * Follows the job round by round. Default {@link BulkUpdateListener#NO_OP}.
     *
     * @param listener the listener; per-document events also go to the {@link Occ}'s {@link OccListener}
     * @return this builder
     * @throws NullPointerException if {@code listener} is {@code null}
     */
    public BulkUpdate<T> listener(BulkUpdateListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener cannot be null");
        return this;
    }

    /**
     * How conflicting and rejected items are retried. Default: the {@link Occ}'s policy. Attempts are
     * counted per item; the deadline is per item too, counted from {@link #execute()}.
     *
     * @param policy the retry policy; its backoff sets the wait between rounds (the longest any retried
     *     item asks for)
     * @return this builder
     * @throws NullPointerException if {@code policy} is {@code null}
     */
    public BulkUpdate<T> retryPolicy(RetryPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "retryPolicy cannot be null");
        return this;
    }

    /**
     * Documents per {@code _mget} and {@code _bulk} request. Default {@value #DEFAULT_BATCH_SIZE}.
     *
     * @param batchSize the maximum number of documents per request, at least 1
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public BulkUpdate<T> batchSize(int batchSize) {
        this.batchSize = Checks.positive(batchSize, "batchSize");
        return this;
    }

    /**
     * Items added so far.
     *
     * @return the number of items added, counting each call of {@code update} or {@code upsert} once
     */
    public int size() {
        return items.size();
    }

    /**
     * Runs the rounds until every item is done, and makes sure no item is lost silently: if any gave up on
     * conflicts or failed, an {@link OccBulkException} carries the whole outcome (use {@link #tryExecute()} to
     * get it as a value instead).
     *
     * @return one outcome per item, in the order the items were added; all of them done
     * @throws OccBulkException if any item gave up on conflicts (status 409) or failed
     * @throws OccException when a whole request fails (see the class comment)
     * @throws IllegalStateException if already executed
     */
    public BulkOutcome<T> execute() {
        BulkOutcome<T> outcome = tryExecute();
        if (!outcome.complete()) {
            throw core.translate(new OccBulkException(outcome));
        }
        return outcome;
    }

    /**
     * {@link #execute()}, returning items that gave up or failed in the outcome rather than throwing: runs the
     * rounds until every item is done. If the thread is interrupted while waiting between
     * rounds, the pending items end as {@code CONFLICT} with {@link StopReason#INTERRUPTED} and the
     * thread's interrupt flag stays set.
     *
     * @return one outcome per item, in the order the items were added
     * @throws OccException when a whole request fails (see the class comment)
     * @throws IllegalStateException if already executed
     */
    public BulkOutcome<T> tryExecute() {
        if (executed) {
            throw new IllegalStateException("this bulk update was already executed");
        }
        executed = true;
        return new BulkJob<>(core, type, policy, listener, items).run(batchSize);
    }

    @Override
    public String toString() {
        return "BulkUpdate{items=" + items.size() + ", batchSize=" + batchSize + ", policy=" + policy + '}';
    }
}
