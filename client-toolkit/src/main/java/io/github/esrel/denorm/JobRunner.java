package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.ConditionalWrites;
import io.github.esrel.internal.Listeners;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.StopReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One run of one propagation job: passes of "stream the children whose stamp is below the parent's
 * seq_no, rewrite them conditionally". Runs on one thread (plus the stream's prefetch thread).
 *
 * <p>Why a child never gets older copies than it has: every write is conditional on the child's
 * seq_no/primary term as read, and the parent is read <em>after</em> the child (per page, and again
 * after every conflict). A successful write therefore replaces a child version that was current from
 * before our parent read until our write, so the copies it replaces came from a parent read no later
 * than ours: ours are at least as new. Whatever order concurrent jobs of the same parent run in, the
 * last write to each child carries copies read after every earlier write to it; the job that starts
 * after the parent's last change writes the newest copies everywhere it has to, and nobody can
 * overwrite them with older ones.
 */
final class JobRunner {

    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);
    private static final int MAX_REMEMBERED_FAILED_IDS = 100_000;

    private final Propagator p;
    private final Relation rel;
    private final String jobId;
    private final String parentId;
    private final JobControl control;
    private final Throttle throttle;
    private final Instant startedAt;
    private final long doneBefore;

    private final List<ChildFailure> failures = new ArrayList<>();
    private final Set<String> failedIds = new HashSet<>();
    private long startNanos;
    private long lastCheckpointNanos;
    private int pass;
    private long parentSeqNo = -1;
    private long total = -1;
    private long done;
    private long written;
    private long upToDate;
    private long moved;
    private long conflicts;
    private long rejected;
    private long failed;
    private int passes;

    JobRunner(Propagator p, String jobId, String parentId, JobControl control, Checkpoint carried) {
        this.p = p;
        this.rel = p.relation();
        this.jobId = jobId;
        this.parentId = parentId;
        this.control = control;
        this.throttle = p.maxDocsPerSecond > 0 ? new Throttle(p.maxDocsPerSecond, System::nanoTime) : Throttle.none();
        if (carried != null) {
            this.startedAt = carried.startedAt();
            this.done = carried.done();
            this.written = carried.written();
            this.upToDate = carried.upToDate();
            this.moved = carried.moved();
            this.conflicts = carried.conflicts();
            this.rejected = carried.rejected();
            this.failed = carried.failed();
            this.passes = carried.passes();
            this.parentSeqNo = carried.parentSeqNo();
        } else {
            this.startedAt = Instant.now();
        }
        this.doneBefore = done;
    }

    PropagationResult run() {
        startNanos = System.nanoTime();
        try {
            checkpoint(JobState.RUNNING, null, true);
            safely(() -> p.listener.onStart(jobId, parentId), "onStart");
            ChildRewrite.Parent parent = readParent();
            if (parent == null) {
                return finish(JobState.PARENT_NOT_FOUND);
            }
            parentSeqNo = parent.seqNo();
            JobState end = JobState.COMPLETED;
            int maxPasses = p.ignoreStamps ? 1 : p.maxPasses;
            int pageSize = throttle.batchSize(p.batchSize);
            try (InFlight writes = new InFlight(p.bulksInFlight)) {
                outer:
                for (pass = 1; pass <= maxPasses; pass++) {
                    passes++;
                    if (p.refresh) {
                        refreshChildren();
                    }
                    long found = 0;
                    Set<String> skip = pass > 1 ? failedSoFar() : Set.of();
                    try (DocStream stream = openStream(parentSeqNo, pageSize);
                         ReadAhead ahead = new ReadAhead(() -> readPage(stream, skip), p.prefetch)) {
                        Page page = ahead.next();
                        total = pass == 1 ? done + page.matches() : total + page.matches();
                        while (!page.last()) {
                            if (control.cancelled() || Thread.currentThread().isInterrupted()) {
                                end = JobState.CANCELLED;
                                break outer;
                            }
                            total -= page.skipped();
                            found += page.hits().size();
                            if (!page.hits().isEmpty()) {
                                if (!throttled(page.hits().size())) {
                                    end = JobState.CANCELLED;
                                    break outer;
                                }
                                if (page.parent() == null || !processPage(page.hits(), page.parent(), writes)) {
                                    end = JobState.PARENT_NOT_FOUND;
                                    break outer;
                                }
                                progress();
                                checkpoint(JobState.RUNNING, null, false);
                            }
                            page = ahead.next();
                        }
                    }
                    // The next pass looks for children still unstamped: every write of this one must be in.
                    if (!writes.drain()) {
                        end = JobState.PARENT_NOT_FOUND;
                        break;
                    }
                    if (found == 0) {
                        break;
                    }
                }
                if (!writes.drain() && end == JobState.COMPLETED) {
                    end = JobState.PARENT_NOT_FOUND;
                }
            }
            if (end == JobState.COMPLETED && failed > 0) {
                end = JobState.COMPLETED_WITH_FAILURES;
            }
            return finish(end);
        } catch (IOException | RuntimeException e) {
            PropagationException pe = e instanceof PropagationException x ? x
                : e instanceof ElasticsearchException ee
                    ? new PropagationException("propagation " + jobId + " of [" + rel.parentIndex() + "][" + parentId + "] to ["
                        + rel.childIndex() + "] failed: " + Reasons.of(ee), ee.status(), ee)
                    : new PropagationException("propagation " + jobId + " of [" + rel.parentIndex() + "][" + parentId + "] to ["
                        + rel.childIndex() + "] failed: " + e, Failures.status(e), e);
            try {
                checkpoint(JobState.FAILED, pe.getMessage(), true);
            } catch (IOException | RuntimeException again) {
                pe.addSuppressed(again);
            }
            safely(() -> p.listener.onJobFailure(jobId, pe), "onJobFailure");
            throw pe;
        }
    }

    // --- one page ---------------------------------------------------------------------------------

    /**
     * A page of children and the parent as read <em>after</em> them.
     *
     * @param matches the stream's total (meaningful on the first page)
     * @param skipped children dropped because they already failed in an earlier pass
     * @param last true when the stream is exhausted (no hits at all)
     */
    private record Page(List<Hit<ObjectNode>> hits, ChildRewrite.Parent parent, long matches, int skipped, boolean last) {}

    /** Reads the next page and then the parent; on the read-ahead thread when prefetching. */
    private Page readPage(DocStream stream, Set<String> skip) throws IOException {
        List<Hit<ObjectNode>> raw = stream.next();
        if (raw.isEmpty()) {
            return new Page(raw, null, Math.max(0, stream.total()), 0, true);
        }
        List<Hit<ObjectNode>> hits = skip.isEmpty() ? raw : raw.stream().filter(h -> !skip.contains(h.id())).toList();
        ChildRewrite.Parent parent = hits.isEmpty() ? null : readParent();
        return new Page(hits, parent, Math.max(0, stream.total()), raw.size() - hits.size(), false);
    }

    /**
     * Runs the reads of the next page (and its parent) on a background thread while the caller writes
     * the current one: reads and writes overlap, at most one page ahead.
     */
    private static final class ReadAhead implements AutoCloseable {
        interface Read {
            Page read() throws IOException;
        }

        private final Read read;
        private final ExecutorService executor;
        private Future<Page> pending;

        ReadAhead(Read read, boolean background) {
            this.read = read;
            this.executor = background ? Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "esrel-propagation-reader");
                t.setDaemon(true);
                return t;
            }) : null;
        }

        Page next() throws IOException {
            Page page;
            if (pending == null) {
                page = read.read();
            } else {
                try {
                    page = pending.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new Page(List.of(), null, 0, 0, true);
                } catch (ExecutionException e) {
                    throw unwrap(e, "reading children");
                } finally {
                    pending = null;
                }
            }
            if (executor != null && !page.last()) {
                pending = executor.submit(read::read);
            }
            return page;
        }

        /** Waits for a read in flight (the stream must not close under it), then stops the thread. */
        @Override
        public void close() {
            if (pending != null) {
                try {
                    pending.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException e) {
                    log.debug("read-ahead failed while closing", e.getCause());
                }
            }
            if (executor != null) {
                executor.shutdownNow();
            }
        }
    }

    /**
     * Decides one page and writes it (or hands it to a writing thread); false when the parent
     * disappeared meanwhile.
     */
    private boolean processPage(List<Hit<ObjectNode>> hits, ChildRewrite.Parent parent, InFlight writes) throws IOException {
        sawParent(parent.seqNo());
        List<Item> work = new ArrayList<>();
        for (Hit<ObjectNode> h : hits) {
            ChildRewrite.Decision d = ChildRewrite.decide(rel, h.source(), parent, p.ignoreStamps, !partial(), partial(), true);
            switch (d.kind()) {
                case UP_TO_DATE -> count(Kind.UP_TO_DATE);
                case MOVED -> count(Kind.MOVED);
                case INVALID -> fail(h.id(), h.routing(), 0, d.error());
                case WRITE -> work.add(new Item(h.index(), h.id(), h.routing(), seq(h.seqNo()), seq(h.primaryTerm()), d,
                    p.retryPolicy.attempts()));
            }
        }
        return writes.submit(work);
    }

    /**
     * The bulk requests of one job in flight: with one, each page is written on the job's thread before the
     * next is read; with more, on the engine's pool, which bounds how many pages are out. A page whose write
     * found the parent gone makes the next {@link #submit} or {@link #drain} return false; a write that failed
     * makes them throw its exception.
     */
    private final class InFlight implements AutoCloseable {
        private final ConditionalWrites<Item> writes;
        private final List<CompletableFuture<ConditionalWrites.Report>> running = new ArrayList<>();

        InFlight(int n) {
            this.writes = ConditionalWrites.builder(JobRunner.this::operation).client(p.client).retryPolicy(p.retryPolicy)
                .attempts(it -> it.attempts).decider(JobRunner.this::reread)
                // Not a child's problem: the user may not write the child index at all. Failing each child would
                // only hide that behind a job "completed with failures"; the job fails as for a whole bulk refused,
                // its checkpoint says so, and a resume after the grant continues it.
                .abortOnDenied(true)
                .maxInFlight(n, "esrel-propagation-writer").listener(new Writes()).build();
        }

        boolean submit(List<Item> work) throws IOException {
            if (!collect(false)) {
                return false;
            }
            try {
                running.add(writes.submit(work));
            } catch (InterruptedException e) {
                // Cancelled: the page stays unwritten and unstamped, so a resume or the next run finds it.
                Thread.currentThread().interrupt();
                return true;
            }
            return collect(false);
        }

        /** Waits for every write in flight; false if one found the parent gone. */
        boolean drain() throws IOException {
            return collect(true);
        }

        private boolean collect(boolean all) throws IOException {
            boolean parentThere = true;
            for (java.util.Iterator<CompletableFuture<ConditionalWrites.Report>> it = running.iterator(); it.hasNext(); ) {
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
        public void close() {
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
    }

    /** The parent disappeared while children were re-read: the job ends. */
    private static final class ParentGone extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ParentGone() {
            super("the parent is gone", null, false, false);
        }
    }

    /** What the engine did to the children, in the job's counters and on the job's listener. */
    private final class Writes implements ConditionalWrites.Listener<Item> {
        @Override
        public void beforeBulk(int round, int items) {
            safely(() -> p.listener.beforeBulk(jobId, pass, items), "beforeBulk");
        }

        @Override
        public void onWritten(Item it, BulkResponseItem response) {
            count(Kind.WRITTEN);
        }

        @Override
        public void onConflict(Item it, int attempt, boolean finalOutcome) {
            synchronized (JobRunner.this) {
                conflicts++;
            }
            safely(() -> p.listener.onConflict(jobId, it.id), "onConflict");
        }

        @Override
        public void onRejected(int items, Duration wait) {
            synchronized (JobRunner.this) {
                rejected += items;
            }
            safely(() -> p.listener.onRejected(jobId, items, wait), "onRejected");
        }

        @Override
        public void onGaveUp(Item it, StopReason stop, ElasticsearchException last) {
            String why = last.status() == Failures.CONFLICT ? "gave up after " + it.attempts.attempt() + " attempts (" + stop
                + "): the child kept changing; last: " : "still rejected after " + it.attempts.attempt() + " attempts (" + stop
                + "): ";
            fail(it.id, it.routing, last.status(), why + Reasons.of(last));
        }

        @Override
        public void onFailed(Item it, ElasticsearchException failure) {
            fail(it.id, it.routing, failure.status(), Reasons.of(failure));
        }
    }

    /**
     * Re-reads children whose write conflicted, then the parent (in that order: see the class
     * comment), and decides again; the ones still to write go to {@code out}.
     *
     * @throws ParentGone when the parent is gone
     */
    private void reread(List<Item> items, ConditionalWrites.Decisions<Item> out) throws IOException {
        MgetResponse<ObjectNode> got = p.client.mget(m -> {
            for (Item it : items) {
                m.docs(d -> {
                    d.index(it.index).id(it.id);
                    if (it.routing != null) {
                        d.routing(it.routing);
                    }
                    return d;
                });
            }
            return m;
        }, ObjectNode.class);
        ChildRewrite.Parent parent = readParent();
        if (parent == null) {
            throw new ParentGone();
        }
        sawParent(parent.seqNo());
        for (int i = 0; i < items.size(); i++) {
            Item it = items.get(i);
            MultiGetResponseItem<ObjectNode> doc = got.docs().get(i);
            if (doc.isFailure()) {
                ErrorCause error = doc.failure().error();
                int status = Failures.statusOf(error);
                if (status == Failures.TOO_MANY_REQUESTS) {
                    synchronized (this) {
                        rejected++;
                    }
                    out.readAgain(it, Failures.ofBulkItem(status, error));
                } else {
                    fail(it.id, it.routing, status, "re-read failed: " + Reasons.of(error));
                }
                continue;
            }
            if (!doc.result().found()) {
                count(Kind.MOVED);
                continue;
            }
            ChildRewrite.Decision d = ChildRewrite.decide(rel, doc.result().source(), parent, p.ignoreStamps, !partial(), partial(), true);
            switch (d.kind()) {
                case UP_TO_DATE -> count(Kind.UP_TO_DATE);
                case MOVED -> count(Kind.MOVED);
                case INVALID -> fail(it.id, it.routing, 0, d.error());
                case WRITE -> {
                    it.seqNo = seq(doc.result().seqNo());
                    it.primaryTerm = seq(doc.result().primaryTerm());
                    it.decision = d;
                    out.write(it);
                }
            }
        }
    }

    private boolean partial() {
        return p.writeMode == Propagator.WriteMode.PARTIAL_UPDATE;
    }

    private BulkOperation operation(Item it) {
        if (p.writeMode == Propagator.WriteMode.PARTIAL_UPDATE) {
            return BulkOperation.of(o -> o.update(u -> {
                u.index(it.index).id(it.id).ifSeqNo(it.seqNo).ifPrimaryTerm(it.primaryTerm)
                    .action(a -> a.doc(it.decision.partial()));
                if (it.routing != null) {
                    u.routing(it.routing);
                }
                return u;
            }));
        }
        return BulkOperation.of(o -> o.index(x -> {
            x.index(it.index).id(it.id).ifSeqNo(it.seqNo).ifPrimaryTerm(it.primaryTerm).document(it.decision.full());
            if (it.routing != null) {
                x.routing(it.routing);
            }
            return x;
        }));
    }

    // --- reads ------------------------------------------------------------------------------------

    /** The parent now (a realtime get), or {@code null} if it does not exist. */
    ChildRewrite.Parent readParent() throws IOException {
        Attempts attempts = p.readPolicy.attempts();
        while (true) {
            try {
                GetResponse<ObjectNode> g = p.client.get(r -> r.index(rel.parentIndex()).id(parentId), ObjectNode.class);
                if (!g.found()) {
                    return null;
                }
                return new ChildRewrite.Parent(parentId, g.source(), seq(g.seqNo()));
            } catch (ElasticsearchException e) {
                if (!attempts.retryAfter(e)) {
                    throw new PropagationException("reading parent [" + rel.parentIndex() + "][" + parentId + "] failed: "
                        + Reasons.of(e), e.status(), e);
                }
            }
        }
    }

    private void refreshChildren() throws IOException {
        Attempts attempts = p.readPolicy.attempts();
        while (true) {
            try {
                p.client.indices().refresh(r -> r.index(rel.childIndex()));
                return;
            } catch (ElasticsearchException e) {
                if (!attempts.retryAfter(e)) {
                    throw new PropagationException("refreshing [" + rel.childIndex() + "] failed: " + Reasons.of(e),
                        e.status(), e);
                }
            }
        }
    }

    private DocStream openStream(long bound, int pageSize) {
        Query byParent = Query.of(q -> q.term(t -> t.field(rel.parentIdField()).value(parentId)));
        Query query = p.ignoreStamps ? byParent : Query.of(q -> q.bool(b -> b.filter(byParent)
            .mustNot(m -> m.range(r -> r.untyped(u -> u.field(rel.stampField()).gte(JsonData.of(bound)))))));
        return DocStream.of(b -> {
            b.client(p.client).index(rel.childIndex()).query(query).pageSize(pageSize).keepAlive(p.keepAlive)
                .mode(p.streaming).retryPolicy(p.readPolicy);
            if (rel.childrenRoutedByParent()) {
                b.routing(parentId);
            }
            return b;
        });
    }

    // --- bookkeeping ------------------------------------------------------------------------------

    private enum Kind { WRITTEN, UP_TO_DATE, MOVED }

    /** A copy: the read-ahead thread filters with it while writes may still add failures. */
    private synchronized Set<String> failedSoFar() {
        return Set.copyOf(failedIds);
    }

    /** The newest parent seq_no read (pages written concurrently may read the parent out of order). */
    private synchronized void sawParent(long seqNo) {
        parentSeqNo = Math.max(parentSeqNo, seqNo);
    }

    private synchronized void count(Kind kind) {
        done++;
        switch (kind) {
            case WRITTEN -> written++;
            case UP_TO_DATE -> upToDate++;
            case MOVED -> moved++;
        }
    }

    private void fail(String id, String routing, int status, String reason) {
        ChildFailure f = new ChildFailure(id, routing, status, reason);
        synchronized (this) {
            done++;
            failed++;
            if (failures.size() < p.maxReportedFailures) {
                failures.add(f);
            }
            if (failedIds.size() < MAX_REMEMBERED_FAILED_IDS) {
                failedIds.add(id);
            }
        }
        safely(() -> p.listener.onFailure(jobId, f), "onFailure");
    }

    /** Waits for the throttle; false when cancelled meanwhile. */
    private boolean throttled(int documents) {
        Duration wait = throttle.acquire(documents);
        try {
            return control.pause(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void progress() {
        Progress pr = snapshot();
        control.progress(pr);
        safely(() -> p.listener.onProgress(pr), "onProgress");
    }

    private synchronized Progress snapshot() {
        Duration elapsed = Duration.ofNanos(System.nanoTime() - startNanos);
        double seconds = elapsed.toNanos() / 1e9;
        double rate = seconds > 0 ? (done - doneBefore) / seconds : 0;
        Duration eta = rate > 0 && total >= done ? Duration.ofMillis((long) ((total - done) / rate * 1000)) : null;
        return new Progress(jobId, parentId, pass, done, total, written, upToDate, moved, conflicts, rejected, failed,
            elapsed, rate, eta);
    }

    private PropagationResult finish(JobState state) throws IOException {
        if (total < done) {
            total = done;
        }
        progress();
        // An interrupt (the caller's way to cancel) must not make the last checkpoint write fail.
        boolean interrupted = Thread.interrupted();
        try {
            checkpoint(state, null, true);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        PropagationResult r = new PropagationResult(jobId, rel.name(), parentId, state, parentSeqNo, total, done, written,
            upToDate, moved, conflicts, rejected, failed, passes, failures, Duration.ofNanos(System.nanoTime() - startNanos));
        safely(() -> p.listener.onFinish(r), "onFinish");
        return r;
    }

    private void checkpoint(JobState state, String error, boolean force) throws IOException {
        long now = System.nanoTime();
        if (!force && now - lastCheckpointNanos < p.checkpointInterval.toNanos()) {
            return;
        }
        lastCheckpointNanos = now;
        Checkpoint c;
        synchronized (this) {
            c = new Checkpoint(jobId, rel.name(), parentId, state, p.owner, parentSeqNo, Math.max(total, done), done,
                written, upToDate, moved, conflicts, rejected, failed, passes, startedAt, Instant.now(), error);
        }
        // A checkpoint rejected by a busy cluster (429) is written again after a backoff, as the
        // children's writes are: a busy write pool must slow the job down, not fail it.
        Attempts attempts = p.readPolicy.attempts();
        while (true) {
            try {
                p.checkpoints.save(c, -1, -1);
                return;
            } catch (ElasticsearchException e) {
                if (!attempts.retryAfter(e)) {
                    throw e;
                }
            }
        }
    }

    private static void safely(Runnable call, String what) {
        Listeners.safely(call, "PropagationListener." + what);
    }

    /** The failure of a background read or write, as the job's own thread would have thrown it. */
    private static PropagationException unwrap(ExecutionException e, String what) throws IOException {
        Throwable c = e.getCause();
        if (c instanceof IOException io) {
            throw io;
        }
        if (c instanceof RuntimeException re) {
            throw re;
        }
        return new PropagationException(what + " failed: " + c, 0, c);
    }

    private static long seq(Long v) {
        return v == null ? -1 : v;
    }

    private static final class Item {
        final String index;
        final String id;
        final String routing;
        final Attempts attempts;
        long seqNo;
        long primaryTerm;
        ChildRewrite.Decision decision;

        Item(String index, String id, String routing, long seqNo, long primaryTerm, ChildRewrite.Decision decision,
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
