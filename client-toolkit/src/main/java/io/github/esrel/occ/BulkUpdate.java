package io.github.esrel.occ;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.get.GetResult;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.Checks;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Listeners;
import io.github.esrel.internal.Reasons;
import io.github.esrel.internal.bulk.ConditionalWrites;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.retry.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    private final List<Item<T>> items = new ArrayList<>();
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
    private BulkUpdate<T> add(String index, DocRef doc, Supplier<T> initial, UnaryOperator<T> fn) {
        items.add(new Item<>(items.size(), index, doc.id(), doc.routing(), initial, fn));
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
        long start = System.nanoTime();
        @SuppressWarnings({"unchecked", "rawtypes"})
        Outcome<T>[] outcomes = new Outcome[items.size()];
        List<Write<T>> writes = Write.of(items, policy, start);
        Rounds rounds = new Rounds(outcomes);
        ConditionalWrites<Write<T>> engine = ConditionalWrites.<Write<T>>builder(w -> w.operation)
                .client(core.client())
                .retryPolicy(policy)
                .attempts(w -> w.attempts)
                .refresh(core.refresh())
                .batchSize(batchSize)
                .decider((batch, out) -> decide(batch, out, outcomes, rounds))
                .listener(rounds)
                .lostAnswers(ConditionalWrites.LostAnswers.RECHECK)
                .build();
        ConditionalWrites.Report report;
        try {
            report = engine.decideAndWrite(writes);
        } catch (IOException | ElasticsearchException e) {
            int number = rounds.round;
            Listeners.safely(() -> listener.onFailure(number, e), "BulkUpdateListener.onFailure");
            int status = e instanceof ElasticsearchException ee ? ee.status() : 0;
            throw core.translate(new OccException(
                    "bulk optimistic update failed in round " + number + " ("
                            + Arrays.stream(outcomes).filter(Objects::nonNull).count() + " of " + items.size()
                            + " items done): " + e.getMessage(),
                    status,
                    e));
        }
        return new BulkOutcome<>(List.of(outcomes), report.rounds(), OccCore.since(start));
    }

    /**
     * Reads a batch of documents, applies the functions of each document's items in the order they were added,
     * and decides one conditional write per document, or finishes its items.
     */
    private void decide(
            List<Write<T>> batch, ConditionalWrites.Decisions<Write<T>> out, Outcome<T>[] outcomes, Rounds rounds)
            throws IOException {
        MgetResponse<ObjectNode> read = core.client()
                .mget(
                        m -> {
                            for (Write<T> w : batch) {
                                m.docs(d -> {
                                    d.index(w.index).id(w.id);
                                    if (w.routing != null) {
                                        ClientApi.routing(d, w.routing);
                                    }
                                    return d;
                                });
                            }
                            return m;
                        },
                        ObjectNode.class);
        Counts counts = rounds.counts;
        for (int i = 0; i < batch.size(); i++) {
            Write<T> w = batch.get(i);
            MultiGetResponseItem<ObjectNode> got = read.docs().get(i);
            if (got.isFailure()) {
                ElasticsearchException e = Failures.ofBulkItem(
                        Failures.statusOf(got.failure().error()), got.failure().error());
                if (Reasons.hasType(e, "index_not_found_exception") && w.creates()) {
                    decide(w, null, "read failed: " + Reasons.of(e), out, outcomes, counts);
                } else if (e.status() == Failures.TOO_MANY_REQUESTS) {
                    counts.rejected++;
                    out.readAgain(w, e);
                } else {
                    for (Item<T> item : w.items) {
                        counts.failed++;
                        outcomes[item.position] = core.finish(item.failed("read failed: " + Reasons.of(e)));
                    }
                }
                continue;
            }
            GetResult<ObjectNode> doc = got.result();
            if (!doc.found() && core.routingCheck() && !w.routingChecked) {
                w.routingChecked = true;
                try {
                    Errors.checkRouting(core.client(), w.index, w.id, w.routing);
                } catch (OccException wrongRouting) {
                    for (Item<T> item : w.items) {
                        counts.failed++;
                        outcomes[item.position] = core.finish(item.failed(wrongRouting.getMessage()));
                    }
                    continue;
                }
            }
            decide(w, doc.found() ? doc : null, null, out, outcomes, counts);
        }
    }

    /**
     * Applies the functions of one document's items in order, each to the value the one before it left (an item
     * whose function throws fails alone and leaves the value as it was), and decides the one write that stores the
     * last value: conditional on the copy read, or a create when the document is missing and an upsert made it.
     *
     * @param doc the copy read, or {@code null} when the document (or its index) does not exist
     * @param noIndex why the read failed when the index does not exist ({@code null} when it does): what a plain
     *     update of it fails with
     */
    private void decide(
            Write<T> w,
            GetResult<ObjectNode> doc,
            String noIndex,
            ConditionalWrites.Decisions<Write<T>> out,
            Outcome<T>[] outcomes,
            Counts counts) {
        WriteLog log = core.writeLog();
        if (w.sent != null && !knownNotApplied(w, doc, log, outcomes, counts)) {
            return;
        }
        T value;
        DocMeta meta = doc == null
                ? null
                : new DocMeta(doc.index(), w.id, w.routing, doc.seqNo(), doc.primaryTerm(), doc.version());
        ObjectNode source = doc == null ? null : log.without(doc.source());
        // What the class gives back of the stored source, written before the functions run (they may change their
        // argument): the fields it lacks are not the class's, and are kept (see SourceMerge).
        ObjectNode seen;
        try {
            value = doc == null ? null : core.json().toValue(source, type, meta);
            seen = doc == null ? null : core.json().toTree(value, w.index, w.id);
        } catch (RuntimeException e) {
            for (Item<T> item : w.items) {
                counts.failed++;
                outcomes[item.position] = core.finish(item.failed("function failed: " + e));
            }
            return;
        }
        List<Item<T>> carried = new ArrayList<>(w.items.size());
        boolean created = false;
        for (Item<T> item : w.items) {
            item.created = false;
            T next;
            try {
                if (value == null && item.initial == null) {
                    if (noIndex != null) {
                        counts.failed++;
                        outcomes[item.position] = core.finish(item.failed(noIndex));
                    } else {
                        counts.notFound++;
                        outcomes[item.position] = core.finish(
                                item.outcome(Outcome.Status.NOT_FOUND).build());
                    }
                    continue;
                }
                T base = value != null
                        ? value
                        : Objects.requireNonNull(item.initial.get(), "initial value supplier returned null");
                next = Objects.requireNonNull(item.fn.apply(base), "the update function returned null");
            } catch (RuntimeException e) {
                counts.failed++;
                outcomes[item.position] = core.finish(item.failed("function failed: " + e));
                continue;
            }
            item.created = value == null;
            created |= item.created;
            item.last = next;
            value = next;
            carried.add(item);
        }
        w.items = carried;
        if (carried.isEmpty()) {
            return;
        }
        ObjectNode tree;
        boolean unchanged;
        try {
            ObjectNode next = core.json().toTree(value, w.index, w.id);
            if (created) {
                tree = next;
                unchanged = false;
            } else {
                // Unchanged when the functions changed nothing the class maps, or nothing that would be stored.
                unchanged = SourceMerge.sameSource(seen, next);
                tree = unchanged ? null : SourceMerge.merge(source, seen, next, meta);
                unchanged |= !unchanged && SourceMerge.sameSource(source, tree);
            }
            if (!unchanged) {
                core.json().checkRouting(value, w.index, w.id, w.routing);
            }
        } catch (RuntimeException e) {
            String why = e instanceof OccException ? e.getMessage() : "function failed: " + e;
            for (Item<T> item : carried) {
                counts.failed++;
                outcomes[item.position] = core.finish(item.failed(why));
            }
            w.items = List.of();
            return;
        }
        if (unchanged) {
            counts.noops++;
            for (Item<T> item : carried) {
                outcomes[item.position] = core.finish(item.outcome(Outcome.Status.NOOP)
                        .value(item.last)
                        .version(doc.seqNo(), doc.primaryTerm(), doc.version())
                        .build());
            }
            w.items = List.of();
            return;
        }
        Versioned<ObjectNode> base = doc == null ? null : versioned(w, doc);
        // The same id for another copy on the same version: conditional on it, at most one copy applies, and the log
        // must then name that one ours.
        String writeId = w.sent != null && sameVersion(w.sent.base(), base) ? w.sent.id() : log.newId();
        ObjectNode logged = log.with(tree, doc == null ? null : doc.source(), WriteLog.on(base), writeId);
        w.sent = new Sent(base, writeId);
        if (created) {
            w.operation = BulkOperation.of(op -> op.create(c -> {
                c.index(w.index).id(w.id).document(logged);
                if (w.routing != null) {
                    c.routing(w.routing);
                }
                return c;
            }));
        } else {
            String concrete = doc.index();
            long seqNo = doc.seqNo();
            long term = doc.primaryTerm();
            w.operation = BulkOperation.of(op -> op.index(x -> {
                x.index(concrete).id(w.id).document(logged).ifSeqNo(seqNo).ifPrimaryTerm(term);
                if (w.routing != null) {
                    x.routing(w.routing);
                }
                return x;
            }));
        }
        out.write(w);
    }

    /**
     * What the document as read now says of the write sent for it before, which conflicted or whose answer was lost
     * (see {@link WriteLog#verdict}): true when it was not applied and the document is to be decided again; false
     * when its items are finished here (applied as the write log shows, or unknown).
     */
    private boolean knownNotApplied(
            Write<T> w, GetResult<ObjectNode> doc, WriteLog log, Outcome<T>[] outcomes, Counts counts) {
        Exception lost = w.lost;
        w.lost = null;
        boolean inDoubt = lost != null;
        if (!inDoubt && !log.adds()) {
            w.sent = null; // a plain conflict, and no log to recognise a copy by
            return true;
        }
        WriteLog.Verdict verdict = WriteLog.verdict(
                log.ifAdding(), doc == null ? null : versioned(w, doc), w.sent.base(), w.sent.id(), false);
        if (verdict == WriteLog.Verdict.APPLIED) {
            for (Item<T> item : w.items) {
                counts.written++;
                outcomes[item.position] =
                        core.finish(item.outcome(item.created ? Outcome.Status.CREATED : Outcome.Status.UPDATED)
                                .value(item.last)
                                .error(ConditionalWrite.APPLIED_UNSEEN)
                                .build());
            }
            w.items = List.of();
            w.sent = null;
            return false;
        }
        boolean staleRead = verdict == WriteLog.Verdict.NOT_YET && lost == null; // a conflict, yet no change read
        if (inDoubt && (verdict == WriteLog.Verdict.CANNOT_TELL || staleRead)) {
            Exception cause = lost != null
                    ? lost
                    : new IllegalStateException(
                            "the write met a conflict on a transport" + " that may have sent it more than once");
            for (Item<T> item : w.items) {
                counts.failed++;
                outcomes[item.position] = core.finish(item.unknown(cause));
            }
            w.items = List.of();
            w.sent = null;
            return false;
        }
        if (verdict != WriteLog.Verdict.NOT_YET) {
            w.sent = null; // another write took its version: decided afresh
        }
        return true;
    }

    private static <T> Versioned<ObjectNode> versioned(Write<T> w, GetResult<ObjectNode> doc) {
        return new Versioned<>(
                doc.index(),
                w.id,
                w.routing,
                doc.source(),
                orMinus1(doc.seqNo()),
                orMinus1(doc.primaryTerm()),
                orMinus1(doc.version()));
    }

    private static boolean sameVersion(Versioned<?> a, Versioned<?> b) {
        return a == null ? b == null : b != null && a.seqNo() == b.seqNo() && a.primaryTerm() == b.primaryTerm();
    }

    /** Turns the engine's rounds into {@link BulkRound}s and finishes the items of the documents it is done with. */
    private final class Rounds implements ConditionalWrites.Listener<Write<T>> {
        private final Outcome<T>[] outcomes;
        Counts counts = new Counts();
        int round;
        int size;
        long roundStart;

        Rounds(Outcome<T>[] outcomes) {
            this.outcomes = outcomes;
        }

        @Override
        public void beforeRound(int number, int documents) {
            round = number;
            size = documents;
            counts = new Counts();
            roundStart = System.nanoTime();
            Listeners.safely(() -> listener.beforeRound(number, documents), "BulkUpdateListener.beforeRound");
        }

        @Override
        public void onWritten(Write<T> w, BulkResponseItem r) {
            w.sent = null;
            counts.written++;
            DocMeta stored = new DocMeta(
                    r.index(), w.id, w.routing, orMinus1(r.seqNo()), orMinus1(r.primaryTerm()), orMinus1(r.version()));
            for (Item<T> item : w.items) {
                outcomes[item.position] =
                        core.finish(item.outcome(item.created ? Outcome.Status.CREATED : Outcome.Status.UPDATED)
                                .value(core.json().withMeta(item.last, stored))
                                .version(orMinus1(r.seqNo()), orMinus1(r.primaryTerm()), orMinus1(r.version()))
                                .build());
            }
        }

        @Override
        public void onConflict(Write<T> w, int attempt, boolean finalOutcome) {
            counts.conflicts++; // one conflicting write, whatever the items it carried
            core.conflict(w.index, w.id, attempt);
            for (Item<T> item : w.items) {
                item.conflicts++;
            }
        }

        @Override
        public void onRejected(int documents, Duration wait) {
            counts.rejected += documents;
        }

        @Override
        public void onGaveUp(Write<T> w, StopReason stop, ElasticsearchException last) {
            for (Item<T> item : w.items) {
                if (last.status() == Failures.CONFLICT) {
                    counts.gaveUp++;
                    outcomes[item.position] = core.finish(item.gaveUp(stop));
                } else {
                    counts.failed++;
                    outcomes[item.position] = core.finish(item.failed(Reasons.of(last)));
                }
            }
        }

        @Override
        public void onFailed(Write<T> w, ElasticsearchException failure) {
            for (Item<T> item : w.items) {
                counts.failed++;
                outcomes[item.position] = core.finish(item.failed(Reasons.of(failure)));
            }
        }

        @Override
        public void onLost(Write<T> w, Exception cause) {
            w.lost = cause; // the decider reads the document and finds out
        }

        @Override
        public void onUnknown(Write<T> w, Exception cause) {
            for (Item<T> item : w.items) {
                counts.failed++;
                outcomes[item.position] = core.finish(item.unknown(cause));
            }
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
                    OccCore.since(roundStart));
            Listeners.safely(() -> listener.afterRound(done), "BulkUpdateListener.afterRound");
        }

        @Override
        public void onInterrupted(List<Write<T>> pending) {
            for (Write<T> w : pending) {
                for (Item<T> item : w.items) {
                    outcomes[item.position] = core.finish(item.gaveUp(StopReason.INTERRUPTED));
                }
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

    /**
     * The items of one document (index as given, id and routing), in the order they were added: one read and one
     * conditional write per round carry all of them, so that they never conflict with one another.
     */
    private static final class Write<T> {
        final String index;
        final String id;
        final String routing;
        /** The items the write being decided carries; those finished before it are dropped. */
        List<Item<T>> items = new ArrayList<>();
        /** One attempt count per document: its items share its reads and writes. */
        Attempts attempts;

        boolean routingChecked;
        /** The conditional write decided after the last read. */
        BulkOperation operation;
        /** The write sent last, until it is answered as written: what a later read is asked about it. */
        Sent sent;
        /** Why the answer to the write sent last was lost, until the next read. */
        Exception lost;

        private Write(String index, String id, String routing) {
            this.index = index;
            this.id = id;
            this.routing = routing;
        }

        /** Whether an item would make the document when it is missing. */
        boolean creates() {
            return items.stream().anyMatch(i -> i.initial != null);
        }

        /** The documents of these items, in the order of each document's first item. */
        static <T> List<Write<T>> of(List<Item<T>> items, RetryPolicy policy, long start) {
            Map<List<String>, Write<T>> byDoc = new LinkedHashMap<>();
            for (Item<T> item : items) {
                Write<T> w = byDoc.computeIfAbsent(
                        Arrays.asList(item.index, item.id, item.routing),
                        k -> new Write<>(item.index, item.id, item.routing));
                if (w.attempts == null) {
                    w.attempts = policy.attempts();
                }
                item.attempts = w.attempts;
                item.start = start;
                w.items.add(item);
            }
            return new ArrayList<>(byDoc.values());
        }
    }

    /** A write sent for a document: the version it was conditional on ({@code null}: a create) and its log id. */
    private record Sent(Versioned<ObjectNode> base, String id) {}

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
        /** Its function made the document (an upsert of a missing one) in the write being decided. */
        boolean created;

        Item(int position, String index, String id, String routing, Supplier<T> initial, UnaryOperator<T> fn) {
            this.position = position;
            this.index = index;
            this.id = id;
            this.routing = routing;
            this.initial = initial;
            this.fn = fn;
        }

        /** This item's outcome so far: its attempts, conflicts and time. */
        Outcome.Builder<T> outcome(Outcome.Status status) {
            return Outcome.<T>builder(index, id, routing, status)
                    .operation(Outcome.Operation.BULK)
                    .attempts(attempts.attempt(), conflicts)
                    .since(start);
        }

        Outcome<T> gaveUp(StopReason reason) {
            return outcome(Outcome.Status.CONFLICT)
                    .value(last)
                    .stopReason(reason)
                    .build();
        }

        Outcome<T> failed(String error) {
            return outcome(Outcome.Status.FAILED)
                    .value(last)
                    .stopReason(attempts.stopReason())
                    .error(error)
                    .build();
        }

        /** The item's write was sent and its fate is not known ({@code cause}); it is not sent again. */
        Outcome<T> unknown(Exception cause) {
            return outcome(Outcome.Status.UNKNOWN)
                    .value(last)
                    .error(Errors.unknown("write", cause))
                    .cause(cause)
                    .build();
        }
    }
}
