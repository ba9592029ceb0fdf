package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Reasons;
import io.github.esrel.internal.bulk.ConditionalWrites;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides and writes the pages of one job through the conditional-write engine: with one bulk in flight,
 * each page on the job's thread before the next is read; with more, on the engine's pool, which bounds how
 * many pages are out. A child whose write conflicted is re-read, then the parent (in that order: see
 * {@link JobRunner}), and decided again. A page whose re-read found the parent gone makes the next
 * {@link #submit} or {@link #drain} return false; a write that failed makes them throw its exception.
 *
 * <p>The slices of a job submit from their own threads: they decide their pages at once, then hand them to the engine
 * one at a time (a slice waiting for a free slot holds the others back, which is the point: the job's bulks in flight
 * stay within its limit, whatever the number of slices).
 */
final class PageWriter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PageWriter.class);

    private final PropagationSettings p;
    private final Relation rel;
    private final String jobId;
    private final JobReads reads;
    private final Ledger ledger;
    private final IntSupplier pass;
    private final SerialListener listener;
    private final ConditionalWrites<Item> writes;
    private final List<CompletableFuture<ConditionalWrites.Report>> running = new ArrayList<>();
    /** Pages handed to the writer so far; guarded by this. */
    private long pages;

    PageWriter(PropagationSettings p, JobReads reads, Ledger ledger, IntSupplier pass, SerialListener listener) {
        this.p = p;
        this.listener = listener;
        this.jobId = listener.jobId();
        this.rel = p.relation();
        this.reads = reads;
        this.ledger = ledger;
        this.pass = pass;
        this.writes = ConditionalWrites.builder(this::operation)
                .client(p.client())
                .retryPolicy(p.retryPolicy())
                .attempts(it -> it.attempts)
                .decider(this::reread)
                // Not a child's problem: the user may not write the child index at all. Failing each child would only
                // hide that behind a job "completed with failures"; the job fails as for a whole bulk refused, its
                // checkpoint says so, and a resume after the grant continues it.
                .abortOnDenied(true)
                // Nor is an index block (read-only, write, flood-stage): failing every child of every page against it
                // would report it 100,000 times and end "completed with failures". The job fails naming the block, and
                // a resume once it is lifted continues.
                .abortOnBlock(true)
                .maxInFlight(p.bulksInFlight(), "esrel-propagation-writer")
                .listener(new Writes())
                .build();
    }

    /** Decides a page of children against the parent read after them, and writes those that need it. */
    boolean submit(List<Hit<ObjectNode>> hits, ChildRewrite.Parent parent) throws IOException {
        ledger.sawParent(parent.seqNo());
        List<Item> work = new ArrayList<>();
        for (Hit<ObjectNode> h : hits) {
            ChildRewrite.Decision d =
                    ChildRewrite.decide(rel, h.source(), parent, p.ignoreStamps(), !p.partial(), p.partial(), true);
            switch (d.kind()) {
                case UP_TO_DATE -> ledger.handled(Ledger.Kind.UP_TO_DATE);
                case MOVED -> ledger.handled(Ledger.Kind.MOVED);
                case INVALID -> fail(h.id(), h.routing(), 0, invalid(d));
                case WRITE ->
                    work.add(new Item(
                            h.index(),
                            h.id(),
                            h.routing(),
                            seq(h.seqNo()),
                            seq(h.primaryTerm()),
                            d,
                            p.retryPolicy().attempts()));
            }
        }
        return write(work, hits.size());
    }

    /** Deciding runs in the slices' threads at once; only handing the page to the engine is one at a time. */
    private synchronized boolean write(List<Item> work, int documents) throws IOException {
        if (!collect(false)) {
            return false;
        }
        long page = ++pages;
        listener.tell(l -> l.onPageStart(jobId, pass.getAsInt(), page, documents), "onPageStart");
        try {
            running.add(writes.submit(work)
                    .whenComplete((report, failure) ->
                            listener.tell(l -> l.onPageEnd(jobId, page, unwrapped(failure)), "onPageEnd")));
        } catch (InterruptedException e) {
            // Cancelled: the page stays unwritten and unstamped, so a resume or the next run finds it.
            Thread.currentThread().interrupt();
            listener.tell(l -> l.onPageEnd(jobId, page, e), "onPageEnd");
            return true;
        }
        return collect(false);
    }

    private static Throwable unwrapped(Throwable failure) {
        return failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure;
    }

    /** Waits for every write in flight; false if one found the parent gone. */
    synchronized boolean drain() throws IOException {
        return collect(true);
    }

    private synchronized boolean collect(boolean all) throws IOException {
        boolean parentThere = true;
        for (Iterator<CompletableFuture<ConditionalWrites.Report>> it = running.iterator(); it.hasNext(); ) {
            CompletableFuture<ConditionalWrites.Report> f = it.next();
            if (!all && !f.isDone()) {
                continue;
            }
            it.remove();
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return parentThere;
            } catch (ExecutionException e) {
                Exception cause = ConditionalWrites.unwrap(e);
                if (cause instanceof ParentGone) {
                    parentThere = false;
                } else if (cause instanceof IOException io) {
                    throw io;
                } else {
                    throw (RuntimeException) cause;
                }
            }
        }
        return parentThere;
    }

    /** On the way out (also after a failure): lets the writes in flight finish, then stops the pool. */
    @Override
    public synchronized void close() {
        for (CompletableFuture<ConditionalWrites.Report> f : running) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException e) {
                log.debug("a write in flight failed while the job ended", e.getCause());
            }
        }
        writes.close();
    }

    /**
     * Re-reads children whose write conflicted, then the parent, and decides again; the ones still to write go
     * to {@code out}.
     *
     * @throws ParentGone when the parent is gone
     */
    private void reread(List<Item> items, ConditionalWrites.Decisions<Item> out) throws IOException {
        MgetResponse<ObjectNode> got = p.client()
                .mget(
                        m -> {
                            for (Item it : items) {
                                m.docs(d -> {
                                    d.index(it.index).id(it.id);
                                    if (it.routing != null) {
                                        ClientApi.routing(d, it.routing);
                                    }
                                    return d;
                                });
                            }
                            return m;
                        },
                        ObjectNode.class);
        ChildRewrite.Parent parent = reads.parent();
        if (parent == null) {
            throw new ParentGone();
        }
        ledger.sawParent(parent.seqNo());
        for (int i = 0; i < items.size(); i++) {
            Item it = items.get(i);
            MultiGetResponseItem<ObjectNode> doc = got.docs().get(i);
            if (doc.isFailure()) {
                ErrorCause error = doc.failure().error();
                int status = Failures.statusOf(error);
                if (status == Failures.TOO_MANY_REQUESTS) {
                    ledger.rejected(1);
                    out.readAgain(it, Failures.ofBulkItem(status, error));
                } else {
                    fail(it.id, it.routing, status, "re-read failed: " + Reasons.of(error));
                }
                continue;
            }
            if (!doc.result().found()) {
                ledger.handled(Ledger.Kind.MOVED);
                continue;
            }
            ChildRewrite.Decision d = ChildRewrite.decide(
                    rel, doc.result().source(), parent, p.ignoreStamps(), !p.partial(), p.partial(), true);
            switch (d.kind()) {
                case UP_TO_DATE -> ledger.handled(Ledger.Kind.UP_TO_DATE);
                case MOVED -> ledger.handled(Ledger.Kind.MOVED);
                case INVALID -> fail(it.id, it.routing, 0, invalid(d));
                case WRITE -> {
                    it.seqNo = seq(doc.result().seqNo());
                    it.primaryTerm = seq(doc.result().primaryTerm());
                    it.decision = d;
                    out.write(it);
                }
            }
        }
    }

    private BulkOperation operation(Item it) {
        if (p.partial()) {
            return BulkOperation.of(o -> o.update(u -> {
                u.index(it.index)
                        .id(it.id)
                        .ifSeqNo(it.seqNo)
                        .ifPrimaryTerm(it.primaryTerm)
                        .action(a -> a.doc(it.decision.partial()));
                if (it.routing != null) {
                    u.routing(it.routing);
                }
                return u;
            }));
        }
        return BulkOperation.of(o -> o.index(x -> {
            x.index(it.index)
                    .id(it.id)
                    .ifSeqNo(it.seqNo)
                    .ifPrimaryTerm(it.primaryTerm)
                    .document(it.decision.full());
            if (it.routing != null) {
                x.routing(it.routing);
            }
            return x;
        }));
    }

    /** Why a child cannot be brought up to date, as its {@code INVALID} decision says (the mapping's message). */
    private static String invalid(ChildRewrite.Decision d) {
        String why = d.error();
        return why != null ? why : "the parent's fields cannot be copied into the child";
    }

    private void fail(String id, @Nullable String routing, int status, String reason) {
        ChildFailure f = ledger.fail(id, routing, status, reason);
        listener.tell(l -> l.onFailure(jobId, f), "onFailure");
    }

    private static long seq(Long v) {
        return v == null ? -1 : v;
    }

    /** The parent disappeared while children were re-read: the job ends. */
    private static final class ParentGone extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ParentGone() {
            super("the parent is gone", null, false, false);
        }
    }

    /** What the engine did to the children, in the ledger and on the job's listener. */
    private final class Writes implements ConditionalWrites.Listener<Item> {
        @Override
        public void beforeBulk(int round, int items) {
            listener.tell(l -> l.beforeBulk(jobId, pass.getAsInt(), items), "beforeBulk");
        }

        @Override
        public void onWritten(Item it, BulkResponseItem response) {
            ledger.handled(Ledger.Kind.WRITTEN);
        }

        @Override
        public void onConflict(Item it, int attempt, boolean finalOutcome) {
            ledger.conflict();
            listener.tell(l -> l.onConflict(jobId, it.id), "onConflict");
        }

        @Override
        public void onRejected(int items, Duration wait) {
            ledger.rejected(items);
            listener.tell(l -> l.onRejected(jobId, items, wait), "onRejected");
        }

        @Override
        public void onGaveUp(Item it, StopReason stop, ElasticsearchException last) {
            String why = last.status() == Failures.CONFLICT
                    ? "gave up after " + it.attempts.attempt() + " attempts (" + stop
                            + "): the child kept changing; last: "
                    : "still rejected after " + it.attempts.attempt() + " attempts (" + stop + "): ";
            fail(it.id, it.routing, last.status(), why + Reasons.of(last));
        }

        @Override
        public void onFailed(Item it, ElasticsearchException failure) {
            fail(it.id, it.routing, failure.status(), Reasons.of(failure));
        }
    }

    /** One child to write: where it is, the version its write is conditional on, and the decided rewrite. */
    private static final class Item {
        final String index;
        final String id;
        final String routing;
        final Attempts attempts;
        long seqNo;
        long primaryTerm;
        ChildRewrite.Decision decision;

        Item(
                String index,
                String id,
                String routing,
                long seqNo,
                long primaryTerm,
                ChildRewrite.Decision decision,
                Attempts attempts) {
            this.index = index;
            this.id = id;
            this.routing = routing;
            this.seqNo = seqNo;
            this.primaryTerm = primaryTerm;
            this.decision = decision;
            this.attempts = attempts;
        }
    }
}
