package io.github.esrel.occ;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.get.GetResult;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.ConditionalWrites;
import io.github.esrel.internal.Listeners;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.retry.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

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
 * <p>Items keep their own routing. Several items for the same document are fine: they conflict with
 * one another and are applied one after the other across rounds. A function that throws makes its
 * item {@code FAILED} (the exception's message in {@link Outcome#error()}) without stopping the others.
 * A failure of a whole request (I/O, or an error other than 429 for the request as a whole) stops the
 * job with an {@link OccException}; items written before stay written.
 *
 * <p>Not thread-safe: build and execute on one thread; the builder can be executed once.
 *
 * @param <T> the caller's document type, the one given to {@link Occ#bulk(Class)}
 */
public final class BulkUpdate<T> {

    /** Default documents per {@code _mget} and per {@code _bulk} request. */
    public static final int DEFAULT_BATCH_SIZE = 500;

    private final Occ occ;
    private final Class<T> type;
    private final List<Item<T>> items = new ArrayList<>();
    private BulkUpdateListener listener = BulkUpdateListener.NO_OP;
    private RetryPolicy policy;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private boolean executed;

    BulkUpdate(Occ occ, Class<T> type) {
        this.occ = occ;
        this.type = type;
        this.policy = occ.retryPolicy();
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
        items.add(new Item<>(
                items.size(),
                doc.requireIndex(),
                doc.id(),
                doc.routing(),
                null,
                Objects.requireNonNull(fn, "fn cannot be null")));
        return this;
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
        items.add(new Item<>(
                items.size(),
                doc.requireIndex(),
                doc.id(),
                doc.routing(),
                Objects.requireNonNull(initial, "initial cannot be null"),
                Objects.requireNonNull(fn, "fn cannot be null")));
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
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
        }
        this.batchSize = batchSize;
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
            throw new OccBulkException(outcome);
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
        long start = System.nanoTime();
        @SuppressWarnings({"unchecked", "rawtypes"})
        Outcome<T>[] outcomes = new Outcome[items.size()];
        for (Item<T> item : items) {
            item.attempts = policy.attempts();
            item.start = start;
        }
        Rounds rounds = new Rounds(outcomes);
        ConditionalWrites<Item<T>> writes = ConditionalWrites.<Item<T>>builder(item -> item.operation)
                .client(occ.client())
                .retryPolicy(policy)
                .attempts(item -> item.attempts)
                .refresh(occ.refresh())
                .batchSize(batchSize)
                .decider((batch, out) -> decide(batch, out, outcomes, rounds))
                .listener(rounds)
                .build();
        ConditionalWrites.Report report;
        try {
            report = writes.decideAndWrite(items);
        } catch (IOException | ElasticsearchException e) {
            int number = rounds.round;
            Listeners.safely(() -> listener.onFailure(number, e), "BulkUpdateListener.onFailure");
            int status = e instanceof ElasticsearchException ee ? ee.status() : 0;
            throw new OccException(
                    "bulk optimistic update failed in round " + number + " ("
                            + java.util.Arrays.stream(outcomes)
                                    .filter(Objects::nonNull)
                                    .count() + " of " + items.size()
                            + " items done): " + e.getMessage(),
                    status,
                    e);
        }
        return new BulkOutcome<>(List.of(outcomes), report.rounds(), Occ.since(start));
    }

    /** Reads a batch, applies each item's function and decides its conditional write, or finishes the item. */
    private void decide(
            List<Item<T>> batch, ConditionalWrites.Decisions<Item<T>> out, Outcome<T>[] outcomes, Rounds rounds)
            throws IOException {
        MgetResponse<ObjectNode> read = occ.client()
                .mget(
                        m -> {
                            for (Item<T> item : batch) {
                                m.docs(d -> {
                                    d.index(item.index).id(item.id);
                                    if (item.routing != null) {
                                        d.routing(item.routing);
                                    }
                                    return d;
                                });
                            }
                            return m;
                        },
                        ObjectNode.class);
        Counts counts = rounds.counts;
        for (int i = 0; i < batch.size(); i++) {
            Item<T> item = batch.get(i);
            MultiGetResponseItem<ObjectNode> got = read.docs().get(i);
            if (got.isFailure()) {
                ElasticsearchException e = Failures.ofBulkItem(
                        Failures.statusOf(got.failure().error()), got.failure().error());
                if (item.initial != null && Reasons.hasType(e, "index_not_found_exception")) {
                    decideCreate(item, out, outcomes, counts);
                } else if (e.status() == Failures.TOO_MANY_REQUESTS) {
                    counts.rejected++;
                    out.readAgain(item, e);
                } else {
                    counts.failed++;
                    outcomes[item.position] = occ.finish(item.failed("read failed: " + Reasons.of(e)));
                }
                continue;
            }
            GetResult<ObjectNode> doc = got.result();
            if (!doc.found()) {
                if (occ.routingCheck() && !item.routingChecked) {
                    item.routingChecked = true;
                    try {
                        Errors.checkRouting(occ.client(), item.index, item.id, item.routing);
                    } catch (OccException wrongRouting) {
                        counts.failed++;
                        outcomes[item.position] = occ.finish(item.failed(wrongRouting.getMessage()));
                        continue;
                    }
                }
                if (item.initial == null) {
                    counts.notFound++;
                    outcomes[item.position] = occ.finish(item.outcome(Outcome.Status.NOT_FOUND, null, -1, -1, -1));
                } else {
                    decideCreate(item, out, outcomes, counts);
                }
                continue;
            }
            T nextValue;
            ObjectNode tree;
            try {
                T current = occ.json().toValue(doc.source(), type, item.index, item.id);
                nextValue = Objects.requireNonNull(item.fn.apply(current), "the update function returned null");
                tree = occ.json().toTree(nextValue, item.index, item.id);
            } catch (RuntimeException e) {
                counts.failed++;
                outcomes[item.position] = occ.finish(item.failed("function failed: " + e));
                continue;
            }
            item.last = nextValue;
            if (Json.sameSource(doc.source(), tree)) {
                counts.noops++;
                outcomes[item.position] = occ.finish(
                        item.outcome(Outcome.Status.NOOP, nextValue, doc.seqNo(), doc.primaryTerm(), doc.version()));
                continue;
            }
            String concrete = doc.index();
            long seqNo = doc.seqNo();
            long term = doc.primaryTerm();
            item.operation = BulkOperation.of(op -> op.index(x -> {
                x.index(concrete).id(item.id).document(tree).ifSeqNo(seqNo).ifPrimaryTerm(term);
                if (item.routing != null) {
                    x.routing(item.routing);
                }
                return x;
            }));
            out.write(item);
        }
    }

    private void decideCreate(
            Item<T> item, ConditionalWrites.Decisions<Item<T>> out, Outcome<T>[] outcomes, Counts counts) {
        T created;
        ObjectNode tree;
        try {
            created = Objects.requireNonNull(
                    item.fn.apply(Objects.requireNonNull(item.initial.get(), "initial value supplier returned null")),
                    "the update function returned null");
            tree = occ.json().toTree(created, item.index, item.id);
        } catch (RuntimeException e) {
            counts.failed++;
            outcomes[item.position] = occ.finish(item.failed("function failed: " + e));
            return;
        }
        item.last = created;
        item.operation = BulkOperation.of(op -> op.create(c -> {
            c.index(item.index).id(item.id).document(tree);
            if (item.routing != null) {
                c.routing(item.routing);
            }
            return c;
        }));
        out.write(item);
    }

    /** Turns the engine's rounds into {@link BulkRound}s and finishes the items it is done with. */
    private final class Rounds implements ConditionalWrites.Listener<Item<T>> {
        private final Outcome<T>[] outcomes;
        Counts counts = new Counts();
        int round;
        int size;
        long roundStart;

        Rounds(Outcome<T>[] outcomes) {
            this.outcomes = outcomes;
        }

        @Override
        public void beforeRound(int number, int items) {
            round = number;
            size = items;
            counts = new Counts();
            roundStart = System.nanoTime();
            Listeners.safely(() -> listener.beforeRound(number, items), "BulkUpdateListener.beforeRound");
        }

        @Override
        public void onWritten(Item<T> item, BulkResponseItem r) {
            counts.written++;
            Outcome.Status status = "created".equals(r.result()) ? Outcome.Status.CREATED : Outcome.Status.UPDATED;
            outcomes[item.position] = occ.finish(item.outcome(
                    status, item.last, orMinus1(r.seqNo()), orMinus1(r.primaryTerm()), orMinus1(r.version())));
        }

        @Override
        public void onConflict(Item<T> item, int attempt, boolean finalOutcome) {
            counts.conflicts++;
            item.conflicts++;
            occ.conflict(item.index, item.id, attempt);
        }

        @Override
        public void onRejected(int items, Duration wait) {
            counts.rejected += items;
        }

        @Override
        public void onGaveUp(Item<T> item, StopReason stop, ElasticsearchException last) {
            if (last.status() == Failures.CONFLICT) {
                counts.gaveUp++;
                outcomes[item.position] = occ.finish(item.gaveUp(stop));
            } else {
                counts.failed++;
                outcomes[item.position] = occ.finish(item.failed(Reasons.of(last)));
            }
        }

        @Override
        public void onFailed(Item<T> item, ElasticsearchException failure) {
            counts.failed++;
            outcomes[item.position] = occ.finish(item.failed(Reasons.of(failure)));
        }

        @Override
        public void afterRound(int number, int retried) {
            BulkRound done = new BulkRound(
                    number,
                    size,
                    counts.written,
                    counts.noops,
                    counts.notFound,
                    counts.conflicts,
                    counts.rejected,
                    retried,
                    counts.gaveUp,
                    counts.failed,
                    Occ.since(roundStart));
            Listeners.safely(() -> listener.afterRound(done), "BulkUpdateListener.afterRound");
        }

        @Override
        public void onInterrupted(List<Item<T>> pending) {
            for (Item<T> item : pending) {
                outcomes[item.position] = occ.finish(item.gaveUp(StopReason.INTERRUPTED));
            }
        }
    }

    private static long orMinus1(Long v) {
        return v == null ? -1 : v;
    }

    @Override
    public String toString() {
        return "BulkUpdate{items=" + items.size() + ", batchSize=" + batchSize + ", policy=" + policy + '}';
    }

    private static final class Counts {
        int written;
        int noops;
        int notFound;
        int conflicts;
        int rejected;
        int gaveUp;
        int failed;
    }

    private static final class Item<T> {
        final int position;
        final String index;
        final String id;
        final String routing;
        final Supplier<T> initial;
        final UnaryOperator<T> fn;
        Attempts attempts;
        long start;
        int conflicts;
        T last;
        boolean routingChecked;
        /** The conditional write decided after the last read. */
        BulkOperation operation;

        Item(int position, String index, String id, String routing, Supplier<T> initial, UnaryOperator<T> fn) {
            this.position = position;
            this.index = index;
            this.id = id;
            this.routing = routing;
            this.initial = initial;
            this.fn = fn;
        }

        Outcome<T> outcome(Outcome.Status status, T value, long seqNo, long primaryTerm, long version) {
            return new Outcome<>(
                    index,
                    id,
                    routing,
                    status,
                    value,
                    seqNo,
                    primaryTerm,
                    version,
                    attempts.attempt(),
                    conflicts,
                    StopReason.NONE,
                    null,
                    Occ.since(start));
        }

        Outcome<T> gaveUp(StopReason reason) {
            return new Outcome<>(
                    index,
                    id,
                    routing,
                    Outcome.Status.CONFLICT,
                    last,
                    -1,
                    -1,
                    -1,
                    attempts.attempt(),
                    conflicts,
                    reason,
                    null,
                    Occ.since(start));
        }

        Outcome<T> failed(String error) {
            return new Outcome<>(
                    index,
                    id,
                    routing,
                    Outcome.Status.FAILED,
                    last,
                    -1,
                    -1,
                    -1,
                    attempts.attempt(),
                    conflicts,
                    attempts.stopReason(),
                    error,
                    Occ.since(start));
        }
    }
}
