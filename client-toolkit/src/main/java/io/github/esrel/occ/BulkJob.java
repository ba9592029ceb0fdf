package io.github.esrel.occ;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.get.GetResult;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
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
import org.jspecify.annotations.Nullable;

/**
 * One execution of a {@link BulkUpdate}: its items grouped by document ({@link Write}), and each document read with
 * one {@code _mget} per batch, decided (its items' functions applied in order, the write log's verdict on a write sent
 * before) and written with one conditional write, round after round, by the bulk engine ({@link ConditionalWrites});
 * each item ends in its own {@link Outcome}, reported to the {@link OccListener} as it ends, each round to the
 * {@link BulkUpdateListener}.
 *
 * @param <T> the caller's document type
 */
final class BulkJob<T> {

    private final OccCore core;
    private final Class<T> type;
    private final RetryPolicy policy;
    private final BulkUpdateListener listener;
    private final List<BulkItem<T>> items;
    /** One per item, in the order the items were added; {@code null} until the item ends. */
    private final Outcome<T>[] outcomes;

    private final Rounds rounds = new Rounds();

    // A generic array cannot be made as such: an array of the raw type holds the outcomes of this job's type only.
    @SuppressWarnings({"unchecked", "rawtypes"})
    BulkJob(OccCore core, Class<T> type, RetryPolicy policy, BulkUpdateListener listener, List<BulkItem<T>> items) {
        this.core = core;
        this.type = type;
        this.policy = policy;
        this.listener = listener;
        this.items = items;
        this.outcomes = new Outcome[items.size()];
    }

    /**
     * Runs the rounds until every item is done.
     *
     * @param batchSize the most documents per {@code _mget} and per {@code _bulk}
     * @throws OccException when a whole request fails, translated
     */
    BulkOutcome<T> run(int batchSize) {
        long start = System.nanoTime();
        List<Write<T>> writes = Write.of(items, policy, start);
        ConditionalWrites<Write<T>> engine = ConditionalWrites.<Write<T>>builder(
                        w -> Objects.requireNonNull(w.operation, "a write is sent once decided"))
                .client(core.client())
                .retryPolicy(policy)
                .attempts(w -> w.attempts)
                .refresh(core.refresh())
                .batchSize(batchSize)
                .decider(this::decide)
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
    private void decide(List<Write<T>> batch, ConditionalWrites.Decisions<Write<T>> out) throws IOException {
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
                    decide(w, null, "read failed: " + Reasons.of(e), out);
                } else if (e.status() == Failures.TOO_MANY_REQUESTS) {
                    counts.rejected++;
                    out.readAgain(w, e);
                } else {
                    for (BulkItem<T> item : w.items) {
                        counts.failed++;
                        end(item, item.failed("read failed: " + Reasons.of(e)));
                    }
                }
                continue;
            }
            GetResult<ObjectNode> doc = got.result();
            if (!doc.found() && core.routingCheck() && !w.routingChecked) {
                w.routingChecked = true;
                try {
                    Errors.checkRouting(core, w.index, w.id, w.routing);
                } catch (OccException wrongRouting) {
                    for (BulkItem<T> item : w.items) {
                        counts.failed++;
                        end(item, item.failed(wrongRouting.getMessage()));
                    }
                    continue;
                }
            }
            decide(w, doc.found() ? doc : null, null, out);
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
            @Nullable GetResult<ObjectNode> doc,
            @Nullable String noIndex,
            ConditionalWrites.Decisions<Write<T>> out) {
        Counts counts = rounds.counts;
        WriteLog log = core.writeLog();
        if (w.sent != null && !knownNotApplied(w, doc, log)) {
            return;
        }
        T value = null;
        DocMeta meta = null;
        ObjectNode source = null;
        // What the class gives back of the stored source, written before the functions run (they may change their
        // argument): the fields it lacks are not the class's, and are kept (see SourceMerge).
        ObjectNode seen = null;
        if (doc != null) {
            DocMeta read = new DocMeta(doc.index(), w.id, w.routing, doc.seqNo(), doc.primaryTerm(), doc.version());
            ObjectNode stored = log.without(doc.source());
            meta = read;
            source = stored;
            try {
                T mapped = core.json().toValue(stored, type, read);
                value = mapped;
                seen = core.json().toTree(mapped, w.index, w.id);
            } catch (RuntimeException e) {
                for (BulkItem<T> item : w.items) {
                    counts.failed++;
                    end(item, item.failed("function failed: " + e));
                }
                return;
            }
        }
        List<BulkItem<T>> carried = new ArrayList<>(w.items.size());
        boolean created = false;
        for (BulkItem<T> item : w.items) {
            item.created = false;
            T next;
            try {
                T base;
                if (value != null) {
                    base = value;
                } else if (item.initial != null) {
                    base = Objects.requireNonNull(item.initial.get(), "initial value supplier returned null");
                } else {
                    if (noIndex != null) {
                        counts.failed++;
                        end(item, item.failed(noIndex));
                    } else {
                        counts.notFound++;
                        end(item, item.outcome(Outcome.Status.NOT_FOUND).build());
                    }
                    continue;
                }
                next = Objects.requireNonNull(item.fn.apply(base), "the update function returned null");
            } catch (RuntimeException e) {
                counts.failed++;
                end(item, item.failed("function failed: " + e));
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
        ObjectNode tree = null;
        boolean unchanged;
        try {
            if (value == null) {
                throw new IllegalStateException("no value for [" + w.index + "][" + w.id + "]"); // each item left one
            }
            ObjectNode next = core.json().toTree(value, w.index, w.id);
            if (created) {
                tree = next;
                unchanged = false;
            } else if (doc == null || source == null || seen == null || meta == null) {
                // Nothing created: the first item's function ran on the value read.
                throw new IllegalStateException("an update of [" + w.index + "][" + w.id + "] that was not read");
            } else {
                // Unchanged when the functions changed nothing the class maps, or nothing that would be stored.
                unchanged = SourceMerge.sameSource(seen, next);
                if (!unchanged) {
                    ObjectNode merged = SourceMerge.merge(source, seen, next, meta);
                    tree = merged;
                    unchanged = SourceMerge.sameSource(source, merged);
                }
            }
            if (!unchanged) {
                core.json().checkRouting(value, w.index, w.id, w.routing);
            }
        } catch (RuntimeException e) {
            String why = e instanceof OccException ? e.getMessage() : "function failed: " + e;
            for (BulkItem<T> item : carried) {
                counts.failed++;
                end(item, item.failed(why));
            }
            w.items = List.of();
            return;
        }
        if (unchanged) {
            Objects.requireNonNull(doc, "an unchanged document was read");
            counts.noops++;
            for (BulkItem<T> item : carried) {
                end(
                        item,
                        item.outcome(Outcome.Status.NOOP)
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
        Objects.requireNonNull(tree, "a changed document has its new source");
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
            Objects.requireNonNull(doc, "an update of a document read");
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
    private boolean knownNotApplied(Write<T> w, @Nullable GetResult<ObjectNode> doc, WriteLog log) {
        Sent sent = Objects.requireNonNull(w.sent, "a write sent before is what the read is asked about");
        Counts counts = rounds.counts;
        Exception lost = w.lost;
        w.lost = null;
        boolean inDoubt = lost != null;
        if (!inDoubt && !log.adds()) {
            w.sent = null; // a plain conflict, and no log to recognise a copy by
            return true;
        }
        WriteLog.Verdict verdict =
                WriteLog.verdict(log.ifAdding(), doc == null ? null : versioned(w, doc), sent.base(), sent.id(), false);
        if (verdict == WriteLog.Verdict.APPLIED) {
            for (BulkItem<T> item : w.items) {
                counts.written++;
                end(
                        item,
                        item.outcome(item.created ? Outcome.Status.CREATED : Outcome.Status.UPDATED)
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
            for (BulkItem<T> item : w.items) {
                counts.failed++;
                end(item, item.unknown(cause));
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

    /** The item is done: its outcome, reported to the listener. */
    private void end(BulkItem<T> item, Outcome<T> outcome) {
        outcomes[item.position] = core.finish(outcome);
    }

    private static <T> Versioned<ObjectNode> versioned(Write<T> w, GetResult<ObjectNode> doc) {
        return new Versioned<>(
                doc.index(),
                w.id,
                w.routing,
                doc.source(),
                OccCore.orMinus1(doc.seqNo()),
                OccCore.orMinus1(doc.primaryTerm()),
                OccCore.orMinus1(doc.version()));
    }

    private static boolean sameVersion(@Nullable Versioned<?> a, @Nullable Versioned<?> b) {
        return a == null ? b == null : b != null && a.seqNo() == b.seqNo() && a.primaryTerm() == b.primaryTerm();
    }

    /** Turns the engine's rounds into {@link BulkRound}s and finishes the items of the documents it is done with. */
    private final class Rounds implements ConditionalWrites.Listener<Write<T>> {
        Counts counts = new Counts();
        int round;
        int size;
        long roundStart;

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
                    r.index(),
                    w.id,
                    w.routing,
                    OccCore.orMinus1(r.seqNo()),
                    OccCore.orMinus1(r.primaryTerm()),
                    OccCore.orMinus1(r.version()));
            for (BulkItem<T> item : w.items) {
                end(
                        item,
                        item.outcome(item.created ? Outcome.Status.CREATED : Outcome.Status.UPDATED)
                                .value(core.json().withMeta(item.last, stored))
                                .version(
                                        OccCore.orMinus1(r.seqNo()),
                                        OccCore.orMinus1(r.primaryTerm()),
                                        OccCore.orMinus1(r.version()))
                                .build());
            }
        }

        @Override
        public void onConflict(Write<T> w, int attempt, boolean finalOutcome) {
            counts.conflicts++; // one conflicting write, whatever the items it carried
            core.conflict(w.index, w.id, attempt);
            for (BulkItem<T> item : w.items) {
                item.conflicts++;
            }
        }

        @Override
        public void onRejected(int documents, Duration wait) {
            counts.rejected += documents;
        }

        @Override
        public void onGaveUp(Write<T> w, StopReason stop, ElasticsearchException last) {
            for (BulkItem<T> item : w.items) {
                if (last.status() == Failures.CONFLICT) {
                    counts.gaveUp++;
                    end(item, item.gaveUp(stop));
                } else {
                    counts.failed++;
                    end(item, item.failed(Reasons.of(last)));
                }
            }
        }

        @Override
        public void onFailed(Write<T> w, ElasticsearchException failure) {
            for (BulkItem<T> item : w.items) {
                counts.failed++;
                end(item, item.failed(Reasons.of(failure)));
            }
        }

        @Override
        public void onLost(Write<T> w, Exception cause) {
            w.lost = cause; // the decider reads the document and finds out
        }

        @Override
        public void onUnknown(Write<T> w, Exception cause) {
            for (BulkItem<T> item : w.items) {
                counts.failed++;
                end(item, item.unknown(cause));
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
                for (BulkItem<T> item : w.items) {
                    end(item, item.gaveUp(StopReason.INTERRUPTED));
                }
            }
        }
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
        final @Nullable String routing;
        /** The items the write being decided carries; those finished before it are dropped. */
        List<BulkItem<T>> items = new ArrayList<>();
        /** One attempt count per document: its items share its reads and writes. */
        final Attempts attempts;

        boolean routingChecked;
        /** The conditional write decided after the last read. */
        @Nullable
        BulkOperation operation;
        /** The write sent last, until it is answered as written: what a later read is asked about it. */
        @Nullable
        Sent sent;
        /** Why the answer to the write sent last was lost, until the next read. */
        @Nullable
        Exception lost;

        private Write(String index, String id, @Nullable String routing, Attempts attempts) {
            this.index = index;
            this.id = id;
            this.routing = routing;
            this.attempts = attempts;
        }

        /** Whether an item would make the document when it is missing. */
        boolean creates() {
            return items.stream().anyMatch(i -> i.initial != null);
        }

        /** The documents of these items, in the order of each document's first item. */
        static <T> List<Write<T>> of(List<BulkItem<T>> items, RetryPolicy policy, long start) {
            Map<List<String>, Write<T>> byDoc = new LinkedHashMap<>();
            for (BulkItem<T> item : items) {
                Write<T> w = byDoc.computeIfAbsent(
                        Arrays.asList(item.index, item.id, item.routing),
                        k -> new Write<>(item.index, item.id, item.routing, policy.attempts()));
                item.attempts = w.attempts;
                item.start = start;
                w.items.add(item);
            }
            return new ArrayList<>(byDoc.values());
        }
    }

    /** A write sent for a document: the version it was conditional on ({@code null}: a create) and its log id. */
    private record Sent(
            @Nullable Versioned<ObjectNode> base, @Nullable String id) {}
}
