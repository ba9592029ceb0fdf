package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Failures;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
                        + rel.childIndex() + "] failed: " + DocStream.reason(ee), ee.status(), ee)
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
     * The bulk requests of one job in flight: with one, each page is written on the job's thread
     * before the next is read; with more, on a small pool, a semaphore bounding how many pages are
     * out. A page whose write found the parent gone makes the next {@link #submit} or {@link #drain}
     * return false; a write that failed makes them throw its exception.
     */
    private final class InFlight implements AutoCloseable {
        private final ExecutorService pool;
        private final java.util.concurrent.Semaphore permits;
        private final List<Future<Boolean>> running = new ArrayList<>();

        InFlight(int n) {
            this.permits = new java.util.concurrent.Semaphore(n);
            this.pool = n == 1 ? null : Executors.newFixedThreadPool(n, r -> {
                Thread t = new Thread(r, "esrel-propagation-writer");
                t.setDaemon(true);
                return t;
            });
        }

        boolean submit(List<Item> work) throws IOException {
            if (pool == null) {
                return writeAll(work);
            }
            if (!collect(false)) {
                return false;
            }
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                // Cancelled: the page stays unwritten and unstamped, so a resume or the next run finds it.
                Thread.currentThread().interrupt();
                return true;
            }
            running.add(pool.submit(() -> {
                try {
                    return writeAll(work);
                } finally {
                    permits.release();
                }
            }));
            return true;
        }

        /** Waits for every write in flight; false if one found the parent gone. */
        boolean drain() throws IOException {
            return collect(true);
        }

        private boolean collect(boolean all) throws IOException {
            boolean parentThere = true;
            for (java.util.Iterator<Future<Boolean>> it = running.iterator(); it.hasNext(); ) {
                Future<Boolean> f = it.next();
                if (!all && !f.isDone()) {
                    continue;
                }
                it.remove();
                try {
                    parentThere &= f.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return parentThere;
                } catch (ExecutionException e) {
                    throw unwrap(e, "writing children");
                }
            }
            return parentThere;
        }

        /** On the way out (also after a failure): lets the writes in flight finish, then stops the pool. */
        @Override
        public void close() {
            if (pool == null) {
                return;
            }
            for (Future<Boolean> f : running) {
                try {
                    f.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                } catch (ExecutionException e) {
                    log.debug("a write in flight failed while the job ended", e.getCause());
                }
            }
            running.clear();
            pool.shutdownNow();
        }
    }

    private boolean writeAll(List<Item> items) throws IOException {
        List<Item> pending = items;
        while (!pending.isEmpty()) {
            int size = pending.size();
            safely(() -> p.listener.beforeBulk(jobId, pass, size), "beforeBulk");
            List<Item> sending = pending;
            BulkResponse response = null;
            ErrorCause whole = null;
            try {
                List<BulkOperation> ops = new ArrayList<>(sending.size());
                for (Item it : sending) {
                    ops.add(operation(it));
                }
                response = p.client.bulk(b -> b.operations(ops));
            } catch (ElasticsearchException e) {
                if (e.status() != 429) {
                    throw e;
                }
                whole = e.error();
            }
            List<Item> conflicted = new ArrayList<>();
            List<Item> again = new ArrayList<>();
            Duration wait = Duration.ZERO;
            int rejectedNow = 0;
            for (int i = 0; i < sending.size(); i++) {
                Item it = sending.get(i);
                int status;
                ErrorCause error;
                if (response == null) {
                    status = 429;
                    error = whole;
                } else {
                    BulkResponseItem r = response.items().get(i);
                    if (r.error() == null) {
                        count(Kind.WRITTEN);
                        continue;
                    }
                    status = r.status();
                    error = r.error();
                }
                String reason = error == null ? "status " + status : "[" + error.type() + "] " + error.reason();
                Outcome next = RetryDecision.of(status);
                ElasticsearchException ex = Failures.ofBulkItem(status, error);
                if (next == Outcome.REREAD) {
                    synchronized (this) {
                        conflicts++;
                    }
                    safely(() -> p.listener.onConflict(jobId, it.id), "onConflict");
                    Optional<Duration> d = it.attempts.onFailure(ex);
                    if (d.isPresent()) {
                        conflicted.add(it);
                        wait = max(wait, d.get());
                    } else {
                        fail(it.id, it.routing, status, "gave up after " + it.attempts.attempt() + " attempts ("
                            + it.attempts.stopReason() + "): the child kept changing; last: " + reason);
                    }
                } else if (next == Outcome.RESEND) {
                    synchronized (this) {
                        rejected++;
                    }
                    rejectedNow++;
                    Optional<Duration> d = it.attempts.onFailure(ex);
                    if (d.isPresent()) {
                        again.add(it);
                        wait = max(wait, d.get());
                    } else {
                        fail(it.id, it.routing, status, "still rejected after " + it.attempts.attempt() + " attempts ("
                            + it.attempts.stopReason() + "): " + reason);
                    }
                } else if (next == Outcome.ABORT) {
                    // Not this child's problem: the user may not write the child index at all. Failing each child
                    // would only hide that behind a job "completed with failures"; the job fails as for a whole
                    // bulk refused, its checkpoint says so, and a resume after the grant continues it.
                    throw ex;
                } else {
                    fail(it.id, it.routing, status, reason);
                }
            }
            if (rejectedNow > 0) {
                int n = rejectedNow;
                Duration w = wait;
                safely(() -> p.listener.onRejected(jobId, n, w), "onRejected");
            }
            if (!conflicted.isEmpty() && !reread(conflicted, again)) {
                return false;
            }
            pending = again;
            if (!pending.isEmpty() && !wait.isZero()) {
                try {
                    p.retryPolicy.sleeper().sleep(wait);
                } catch (InterruptedException e) {
                    // The children left are still stamped old: a resume or the next run finds them.
                    Thread.currentThread().interrupt();
                    return true;
                }
            }
        }
        return true;
    }

    /**
     * Re-reads children whose write conflicted, then the parent (in that order: see the class
     * comment), and decides again; the ones still to write go to {@code out}. False when the parent is
     * gone.
     */
    private boolean reread(List<Item> items, List<Item> out) throws IOException {
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
            return false;
        }
        sawParent(parent.seqNo());
        for (int i = 0; i < items.size(); i++) {
            Item it = items.get(i);
            MultiGetResponseItem<ObjectNode> doc = got.docs().get(i);
            if (doc.isFailure()) {
                String type = doc.failure().error().type();
                if ("es_rejected_execution_exception".equals(type) || "circuit_breaking_exception".equals(type)) {
                    synchronized (this) {
                        rejected++;
                    }
                    out.add(it); // its old seq_no conflicts again, which re-reads it again
                } else {
                    fail(it.id, it.routing, 500, "re-read failed: [" + type + "] " + doc.failure().error().reason());
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
                    out.add(it);
                }
            }
        }
        return true;
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
                        + DocStream.reason(e), e.status(), e);
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
                    throw new PropagationException("refreshing [" + rel.childIndex() + "] failed: " + DocStream.reason(e),
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
        try {
            call.run();
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError vme) {
                throw vme;
            }
            log.warn("PropagationListener.{} failed; ignored", what, e);
        }
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

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static long seq(Long v) {
        return v == null ? -1 : v;
    }

    /** What to do with a child whose write failed with a status. */
    enum Outcome {
        /** 409: the child changed since read; re-read it (and the parent) and decide again. */
        REREAD,
        /** 429: Elasticsearch is overloaded; send the same write again after a backoff. */
        RESEND,
        /** 401 or 403: the job's credentials may not write the child index; the whole job fails. */
        ABORT,
        /** Anything else: the document is refused; report it. */
        REPORT
    }

    /** The retry decision for a failed bulk item, apart so that it can be tested alone. */
    static final class RetryDecision {
        private RetryDecision() {}

        static Outcome of(int status) {
            return switch (status) {
                case 409 -> Outcome.REREAD;
                case 429 -> Outcome.RESEND;
                case 401, 403 -> Outcome.ABORT;
                default -> Outcome.REPORT;
            };
        }
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
