package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import io.github.esrel.doc.DocStreamException;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Failures;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * One run of one propagation job: passes of "stream the children whose stamp is below the parent's
 * seq_no, rewrite them conditionally" ({@link PageWriter}), with progress, throttling, cancellation and
 * checkpoints. Runs on one thread (plus the stream's prefetch thread and the writer's pool), or, when the child
 * index has several shards, reads each pass with a sliced point in time: one thread per slice, all handing their
 * pages to one {@link PageWriter}, so that the job's bulks in flight, throttle, ledger and listener stay one.
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

    private final PropagationSettings p;
    private final SerialListener listener;
    private final Relation rel;
    private final String jobId;
    private final String parentId;
    private final JobControl control;
    private final Throttle throttle;
    private final Instant startedAt;
    private final Ledger ledger;
    private final JobReads reads;
    private long startNanos;
    private long lastCheckpointNanos;
    private volatile int pass;

    /** The version of the job's checkpoint this run wrote (or claimed) last; guarded by {@link #checkpoint}. */
    private long checkpointVersion;

    /**
     * @param claimed the claimed checkpoint of a resumed job, with its version; {@code null} for a new job
     */
    JobRunner(
            PropagationSettings p,
            String jobId,
            String parentId,
            JobControl control,
            Checkpoints.@Nullable Stored claimed) {
        // Writer threads and this one call the listener: one call at a time, as PropagationListener promises.
        this.p = p;
        this.listener = new SerialListener(p.listener(), jobId);
        this.rel = p.relation();
        this.jobId = jobId;
        this.parentId = parentId;
        this.control = control;
        this.throttle =
                p.maxDocsPerSecond() > 0 ? new Throttle(p.maxDocsPerSecond(), System::nanoTime) : Throttle.none();
        Checkpoint carried = claimed != null ? claimed.checkpoint() : null;
        this.checkpointVersion = claimed != null ? claimed.version() : 0;
        this.startedAt = carried != null ? carried.startedAt() : Instant.now();
        this.ledger = carried != null
                ? new Ledger(carried.counts(), carried.parentSeqNo(), p.maxReportedFailures())
                : new Ledger(JobCounts.NONE, -1, p.maxReportedFailures());
        this.reads = new JobReads(p, parentId);
    }

    PropagationResult run() {
        startNanos = System.nanoTime();
        try {
            checkpoint(JobState.RUNNING, null, true);
            listener.tell(l -> l.onStart(jobId, parentId), "onStart");
            ChildRewrite.Parent parent = reads.parent();
            if (parent == null) {
                return finish(JobState.PARENT_NOT_FOUND);
            }
            ledger.sawParent(parent.seqNo());
            JobState end = passes(ledger.parentSeqNo());
            if (end == JobState.COMPLETED && ledger.failed() > 0) {
                end = JobState.COMPLETED_WITH_FAILURES;
            }
            return finish(end);
        } catch (IOException | RuntimeException e) {
            PropagationException pe = e instanceof PropagationException x
                    ? x
                    : e instanceof DocStreamException d
                            ? JobReads.failed(d)
                            : new PropagationException(
                                    "propagation " + jobId + " of [" + rel.parentIndex() + "][" + parentId + "] to ["
                                            + rel.childIndex() + "] "
                                            + (e instanceof ElasticsearchException ee
                                                    ? ended(ee) + Reasons.of(ee)
                                                    : "failed: " + e),
                                    Failures.status(e),
                                    e);
            try {
                checkpoint(JobState.FAILED, pe.getMessage(), true);
            } catch (IOException | RuntimeException again) {
                pe.addSuppressed(again);
            }
            listener.tell(l -> l.onJobFailure(jobId, pe), "onJobFailure");
            throw pe;
        }
    }

    /** The main pass, then catch-up passes while they find children; how the job ends. */
    private JobState passes(long bound) throws IOException {
        int maxPasses = p.ignoreStamps() ? 1 : p.maxPasses();
        int pageSize = throttle.batchSize(p.batchSize());
        boolean sliceable =
                p.maxSlices() > 1 && !rel.childrenRoutedByParent() && p.streaming() != DocStream.Mode.SCROLL;
        int slices = SlicePlan.slices(
                p.maxSlices(), sliceable ? reads.primaryShards() : 1, rel.childrenRoutedByParent(), p.streaming());
        ExecutorService sliceThreads = slices > 1 ? Executors.newFixedThreadPool(slices, sliceThreadFactory()) : null;
        try (PageWriter writes = new PageWriter(p.withBulksInFlightResolved(), reads, ledger, () -> pass, listener)) {
            for (pass = 1; pass <= maxPasses; pass++) {
                if (p.refresh()) {
                    reads.refreshChildren();
                }
                AtomicLong found = new AtomicLong();
                Set<String> skip = pass > 1 ? ledger.failedSoFar() : Set.of();
                String pit = slices > 1 ? reads.openPointInTime() : null;
                JobState end;
                if (pit == null) {
                    slices = 1; // no point in time to share: one stream, as the cluster allows
                    ledger.passStarted(1);
                    end = slice(reads.children(bound, pageSize), 0, skip, writes, found, new AtomicReference<>());
                } else {
                    try {
                        ledger.passStarted(slices);
                        // A point in time is opened only for more than one slice, which have their threads.
                        ExecutorService threads = Objects.requireNonNull(sliceThreads, "no slice threads");
                        end = slices(threads, bound, pageSize, pit, slices, skip, writes, found);
                    } finally {
                        reads.closePointInTime(pit);
                    }
                }
                if (end != null) {
                    return end;
                }
                // The next pass looks for children still unstamped: every write of this one must be in.
                if (!writes.drain()) {
                    return JobState.PARENT_NOT_FOUND;
                }
                if (found.get() == 0) {
                    break;
                }
            }
            return writes.drain() ? JobState.COMPLETED : JobState.PARENT_NOT_FOUND;
        } finally {
            if (sliceThreads != null) {
                sliceThreads.shutdownNow();
            }
        }
    }

    /**
     * Reads the slices of one pass in parallel, each on its own thread, until all have read their last page or one
     * ends the pass (cancelled, parent gone, failed): the others then stop after their current page. Returns only
     * once every slice has stopped, so that nothing reads or submits after the pass.
     *
     * @return how the job ends, or {@code null} when every slice read its last page
     */
    private @Nullable JobState slices(
            ExecutorService threads,
            long bound,
            int pageSize,
            String pit,
            int slices,
            Set<String> skip,
            PageWriter writes,
            AtomicLong found)
            throws IOException {
        AtomicReference<JobState> halt = new AtomicReference<>();
        List<Future<JobState>> running = new ArrayList<>(slices);
        for (int i = 0; i < slices; i++) {
            int id = i;
            running.add(threads.submit(() -> {
                try {
                    JobState end =
                            slice(reads.children(bound, pageSize, pit, id, slices), id, skip, writes, found, halt);
                    if (end != null) {
                        halt.compareAndSet(null, end);
                    }
                    return end;
                } catch (Throwable t) {
                    halt.compareAndSet(null, JobState.FAILED);
                    throw t;
                }
            }));
        }
        JobState end = null;
        Throwable failure = null;
        boolean interrupted = false;
        for (Future<JobState> f : running) {
            while (true) {
                try {
                    JobState e = f.get();
                    if (end == null) {
                        end = e;
                    }
                    break;
                } catch (InterruptedException e) {
                    // The caller's way to cancel: every slice stops after its page, then the job ends CANCELLED.
                    interrupted = true;
                    halt.compareAndSet(null, JobState.CANCELLED);
                } catch (ExecutionException e) {
                    if (failure == null) {
                        failure = e.getCause();
                    } else {
                        failure.addSuppressed(e.getCause());
                    }
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure != null) {
            throw new IllegalStateException("a slice of propagation " + jobId + " failed: " + failure, failure);
        }
        return interrupted ? JobState.CANCELLED : end != null ? end : halt.get();
    }

    /**
     * Reads one slice (or, with one slice, every child) to its end, handing each page to the writer.
     *
     * @param halt set by another slice that ended the pass: this one stops after its current page
     * @return how the job ends, or {@code null} when the slice read its last page (or another slice halted it)
     */
    private @Nullable JobState slice(
            DocStream opened,
            int slice,
            Set<String> skip,
            PageWriter writes,
            AtomicLong found,
            AtomicReference<JobState> halt)
            throws IOException {
        try (DocStream stream = opened) {
            List<Hit<ObjectNode>> page = stream.next();
            ledger.matched(pass, Math.max(0, stream.total()));
            for (; !page.isEmpty(); page = stream.next()) {
                if (control.cancelled() || Thread.currentThread().isInterrupted()) {
                    return JobState.CANCELLED;
                }
                if (halt.get() != null) {
                    return null;
                }
                List<Hit<ObjectNode>> hits = skip.isEmpty()
                        ? page
                        : page.stream().filter(h -> !skip.contains(h.id())).toList();
                ledger.skipped(page.size() - hits.size());
                found.addAndGet(hits.size());
                if (hits.isEmpty()) {
                    continue;
                }
                if (!throttled(hits.size())) {
                    return JobState.CANCELLED;
                }
                // The parent as read after these children: see the class comment.
                ChildRewrite.Parent parent = reads.parent();
                if (parent == null || !writes.submit(hits, parent)) {
                    return JobState.PARENT_NOT_FOUND;
                }
                ledger.sliceRead(slice, hits.size());
                if (ledger.doneThisRun() > 0) { // with bulks in flight, the first pages may not be written yet
                    progress();
                }
                checkpoint(JobState.RUNNING, null, false);
            }
            ledger.sliceFinished(slice);
            return null;
        }
    }

    private ThreadFactory sliceThreadFactory() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "esrel-propagation-slice-" + jobId + "-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        };
    }

    /** Waits for the throttle; false when cancelled meanwhile. */
    private boolean throttled(int documents) {
        Duration wait;
        synchronized (throttle) { // one pace for the job, whatever the number of slices
            wait = throttle.acquire(documents);
        }
        try {
            return control.pause(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Synchronized: slices report from their threads, and the progress a job shows must not go backwards. */
    private synchronized void progress() {
        Duration elapsed = Duration.ofNanos(System.nanoTime() - startNanos);
        JobCounts counts = ledger.counts();
        double seconds = elapsed.toNanos() / 1e9;
        double rate = seconds > 0 ? ledger.doneThisRun() / seconds : 0;
        Duration eta = rate > 0 && counts.total() >= counts.done()
                ? Duration.ofMillis((long) ((counts.total() - counts.done()) / rate * 1000))
                : null;
        Progress pr = new Progress(jobId, parentId, pass, counts, elapsed, rate, eta);
        control.progress(pr);
        listener.tell(l -> l.onProgress(pr), "onProgress");
    }

    private PropagationResult finish(JobState state) throws IOException {
        ledger.settle();
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
        PropagationResult r = new PropagationResult(
                jobId,
                rel.name(),
                parentId,
                state,
                ledger.parentSeqNo(),
                ledger.counts(),
                ledger.failures(),
                Duration.ofNanos(System.nanoTime() - startNanos));
        listener.tell(l -> l.onFinish(r), "onFinish");
        return r;
    }

    /** Synchronized: slices checkpoint from their threads, and the heartbeat must not go back in time. */
    private synchronized void checkpoint(JobState state, @Nullable String error, boolean force) throws IOException {
        long now = System.nanoTime();
        if (!force && now - lastCheckpointNanos < p.checkpointInterval().toNanos()) {
            return;
        }
        lastCheckpointNanos = now;
        Instant at = Instant.now();
        Checkpoint c = new Checkpoint(
                jobId,
                rel.name(),
                parentId,
                state,
                p.owner(),
                ledger.parentSeqNo(),
                ledger.checkpointCounts(),
                startedAt,
                at,
                error,
                ledger.slices());
        // A checkpoint rejected by a busy cluster (429) is written again after a backoff, as the
        // children's writes are: a busy write pool must slow the job down, not fail it. Each write carries the next
        // version (see Checkpoints): refused when another process claimed the job meanwhile, which ends this run.
        Attempts attempts = p.readPolicy().attempts();
        while (true) {
            try {
                checkpointVersion = p.checkpoints().write(c, checkpointVersion);
                listener.tell(l -> l.onCheckpoint(jobId, state, at), "onCheckpoint");
                return;
            } catch (ElasticsearchException e) {
                if (!attempts.retryAfter(e)) {
                    throw e;
                }
            }
        }
    }

    /** How the job ended; for an index block, which Elasticsearch names, also how to get past it. */
    private String ended(ElasticsearchException e) {
        return Reasons.hasType(e, "cluster_block_exception")
                ? "stopped at an index block (lift it, then resume job [" + jobId
                        + "]; Elasticsearch lifts the flood-stage read_only_allow_delete block itself once disk space is freed): "
                : "failed: ";
    }
}
