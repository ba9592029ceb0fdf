package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.IndexResponse;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocRef;
import io.github.esrel.doc.DocStream;
import io.github.esrel.doc.DocStreamException;
import io.github.esrel.internal.Checks;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.JsonTrees;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Keeps denormalized copies up to date: when a parent changes, every child of a {@link Relation} is
 * brought up to date by a job that streams the children (point in time + {@code search_after}, or with
 * {@link Builder#slices(int)} one slice per shard of the child index read in parallel; or a
 * scroll) and rewrites them with {@code _bulk}, each write conditional on the child's
 * {@code if_seq_no}/{@code if_primary_term}. No scripts, no {@code _update_by_query}.
 *
 * <pre>{@code
 * Propagator renames = Propagator.of(p -> p.client(es).relation(author)
 *     .maxDocsPerSecond(5_000)
 *     .listener(new PropagationListener() {
 *         public void onProgress(Progress pr) { System.out.println(pr.bar(40)); }
 *     }));
 * es.index(i -> i.index("users").id("42").document(renamedUser));
 * PropagationResult r = renames.propagate("42");              // or start("42") for a background job
 * }</pre>
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>No user edit is lost.</b> A child is written only if it is unchanged since it was read; on a
 *       409 it is re-read and the copies are applied on top of whatever the user wrote. Only the copy
 *       targets and the stamp change; every other field is kept as stored. Children deleted or given
 *       another parent meanwhile are left alone (never re-created).</li>
 *   <li><b>Concurrent jobs of one parent converge on the newest parent.</b> Each job reads the parent
 *       again for every page and after every conflict, always after reading the children it writes;
 *       so a write can only replace copies with copies read no earlier (see {@link JobRunner}). Whatever
 *       order two jobs run in, the children end with the parent's last value.</li>
 *   <li><b>Idempotent and resumable.</b> A child brought up to date carries the parent's seq_no as its
 *       stamp ({@link Relation#stampField()}); a job only streams children whose stamp is lower. Running
 *       a job twice writes nothing the second time; a job resumed from its checkpoint after a crash
 *       ({@link #resume}, {@link #resumeUnfinished}) finds exactly the children not yet done.</li>
 *   <li><b>Children created during the job.</b> After the main pass the child index is refreshed and
 *       children still stamped below the parent's seq_no are streamed again (catch-up passes, up to
 *       {@link Builder#maxPasses}). A child written with old copies after that (its writer read the
 *       parent before the change) is caught if its writer calls {@link #syncChild} after writing.</li>
 *   <li><b>Nothing silently dropped.</b> Writes rejected with 429 are sent again after the retry
 *       policy's backoff; every child that cannot be written is reported to
 *       {@link PropagationListener#onFailure} and counted in the result.</li>
 *   <li><b>Constant memory</b>: at most two pages of children (the one being written and the one being
 *       prefetched, plus one per extra {@link Builder#bulksInFlight(int) bulk in flight}, and two per extra
 *       {@link Builder#slices(int) slice}), whatever the number of children.</li>
 * </ul>
 * <p>Progress (done/total, rate, ETA) goes to the listener after every page; throttling
 * ({@link Builder#maxDocsPerSecond}) paces pages; {@link PropagationJob#cancel()} stops a background
 * job after its current page. The checkpoint document ({@link Checkpoint}) is written durably to
 * Elasticsearch as the job runs.
 *
 * <p>Thread-safe: one propagator can run many jobs at once.
 */
public final class Propagator {

    /** How children are rewritten. */
    public enum WriteMode {
        /**
         * Index the whole child source as read, with the copies replaced (the default: the same cost as
         * a plain {@code _bulk} index of the document). Needs {@code _source} to hold the whole document.
         */
        INDEX,
        /**
         * A partial-document {@code update} with only the copies and the stamp (less to send, more work
         * for the server); for indices whose {@code _source} is filtered. A missing parent value becomes
         * {@code null} in the child instead of being removed.
         */
        PARTIAL_UPDATE
    }

    private final PropagationSettings settings;
    private final ElasticsearchClient client;
    private final Relation relation;
    private final Checkpoints checkpoints;
    private final RetryPolicy retryPolicy;
    private final boolean ignoreStamps;
    private final Duration staleAfter;
    private final Executor executor;
    private final String owner;

    private Propagator(Builder b) {
        this.client = Clients.internal(Objects.requireNonNull(b.client, "client cannot be null"));
        this.relation = Objects.requireNonNull(b.relation, "relation cannot be null");
        this.checkpoints = new Checkpoints(client, b.checkpointIndex);
        this.retryPolicy = b.retryPolicy;
        this.ignoreStamps = b.ignoreStamps;
        this.staleAfter = b.staleAfter;
        this.executor = b.executor;
        this.owner = ManagementFactory.getRuntimeMXBean().getName() + ":"
                + UUID.randomUUID().toString().substring(0, 8);
        this.settings = new PropagationSettings(
                client,
                relation,
                checkpoints,
                b.batchSize,
                b.maxDocsPerSecond,
                b.retryPolicy,
                b.retryPolicy.toBuilder().retryOn(Failures.rejected()).build(),
                b.listener,
                b.writeMode,
                b.streaming,
                b.keepAlive,
                b.refresh,
                b.maxPasses,
                b.checkpointInterval,
                b.ignoreStamps,
                b.maxReportedFailures,
                b.prefetch,
                b.bulksInFlight,
                b.slices,
                owner);
    }

    /**
     * Builds a propagator with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the builder's options, at least {@link Builder#client} and {@link Builder#relation}
     * @return the new propagator
     * @throws NullPointerException if the client or the relation is missing
     * @throws IllegalStateException if the server refuses the requests of this client line
     */
    public static Propagator of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * Starts a builder; {@link Builder#client} and {@link Builder#relation} are required.
     *
     * @return a new builder with the defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The relation whose copies this propagator keeps up to date.
     *
     * @return the relation, never {@code null}
     */
    public Relation relation() {
        return relation;
    }

    /**
     * Identifies this propagator's jobs in checkpoints ({@code pid@host:random}).
     *
     * @return the owner, different for every propagator, even within one process
     */
    public String owner() {
        return owner;
    }

    /**
     * Brings every child of {@code parentId} up to date, on the calling thread. An interrupt of the
     * thread stops the job like {@link PropagationJob#cancel()}.
     *
     * @param parentId the id of the parent, in {@link Relation#parentIndex()}, whose copies to propagate
     * @return the result; {@code PARENT_NOT_FOUND} (nothing written) when there is no such parent
     * @throws PropagationException if the job fails as a whole (its checkpoint then says
     *     {@code FAILED} and it can be resumed); 409 when another process claimed the job meanwhile (its heartbeat
     *     looked stale to it: see {@link Builder#staleAfter}), which this run then leaves to it
     * @throws NullPointerException if {@code parentId} is {@code null}
     * @throws IllegalArgumentException if {@code parentId} is empty
     */
    public PropagationResult propagate(String parentId) {
        Checks.id(parentId);
        String jobId = newJobId(parentId);
        return new JobRunner(settings, jobId, parentId, new JobControl(jobId, parentId), null).run();
    }

    /**
     * Starts the job in the background, on the {@link Builder#executor} (default: a new daemon thread
     * per job). Returns at once; the job's failures are reported by {@link PropagationJob#await()}.
     *
     * @param parentId the id of the parent, in {@link Relation#parentIndex()}, whose copies to propagate
     * @return the handle to follow, wait for or cancel the job
     * @throws NullPointerException if {@code parentId} is {@code null}
     * @throws IllegalArgumentException if {@code parentId} is empty
     */
    public PropagationJob start(String parentId) {
        Checks.id(parentId);
        return launch(newJobId(parentId), parentId, null);
    }

    /**
     * Continues a job from its checkpoint: after a crash, a failure or a cancel. The children already
     * done carry the stamp and are not read again. Runs on the calling thread.
     *
     * @param jobId the job's id, from {@link PropagationJob#id()} or {@link Checkpoint#jobId()}
     * @return the result, with the counts of the earlier runs included
     * @throws PropagationException 404 if there is no such job, 400 if it belongs to another relation,
     *     409 if it is running elsewhere (its heartbeat is younger than {@link Builder#staleAfter}) or
     *     another process claimed it first; or if the resumed job fails as a whole
     * @throws NullPointerException if {@code jobId} is {@code null}
     * @throws IllegalArgumentException if {@code jobId} is empty
     */
    public PropagationResult resume(String jobId) {
        Checkpoints.Stored claimed = claim(jobId);
        String parentId = claimed.checkpoint().parentId();
        return new JobRunner(settings, jobId, parentId, new JobControl(jobId, parentId), claimed).run();
    }

    /**
     * Resumes, one after the other on the calling thread, every job of this relation that crashed
     * (state {@code RUNNING} with a heartbeat older than {@link Builder#staleAfter}) or failed. Jobs
     * another process claims first are skipped.
     *
     * @return the results of the resumed jobs, in the order they ran; empty when there was none
     * @throws PropagationException if the checkpoints cannot be listed, or a resumed job fails as a
     *     whole (the jobs after it are not resumed)
     */
    public List<PropagationResult> resumeUnfinished() {
        List<PropagationResult> results = new ArrayList<>();
        for (Checkpoint c : unfinished()) {
            try {
                results.add(resume(c.jobId()));
            } catch (PropagationException e) {
                if (e.status() != 409) {
                    throw e;
                }
            }
        }
        return results;
    }

    /**
     * Jobs of this relation that crashed (stale heartbeat) or failed. Creates the checkpoint index if
     * it does not exist, and refreshes it before searching.
     *
     * @return their checkpoints, in no particular order; empty when there is none
     * @throws PropagationException if the checkpoints cannot be listed
     */
    public List<Checkpoint> unfinished() {
        try {
            Instant staleBefore = Instant.now().minus(staleAfter);
            return checkpoints.find(relation.name(), List.of(JobState.RUNNING, JobState.FAILED)).stream()
                    .filter(c -> c.state() == JobState.FAILED || !c.updatedAt().isAfter(staleBefore))
                    .toList();
        } catch (DocStreamException e) {
            throw JobReads.failed(e);
        } catch (ElasticsearchException e) {
            throw new PropagationException(
                    "cannot list checkpoints in [" + checkpoints.index() + "]: " + Reasons.of(e), e.status(), e);
        } catch (IOException e) {
            throw new PropagationException("cannot list checkpoints in [" + checkpoints.index() + "]: " + e, 0, e);
        }
    }

    /**
     * Creates the checkpoint index now if it does not exist (one shard; otherwise the first job creates
     * it, and waits for it).
     *
     * @throws PropagationException if it cannot be created
     */
    public void ensureCheckpointIndex() {
        try {
            checkpoints.ensureIndex();
        } catch (ElasticsearchException e) {
            throw new PropagationException(
                    "cannot create [" + checkpoints.index() + "]: " + Reasons.of(e), e.status(), e);
        } catch (IOException e) {
            throw new PropagationException("cannot create [" + checkpoints.index() + "]: " + e, 0, e);
        }
    }

    /**
     * The stored checkpoint of a job, read in real time (no refresh needed). Creates the checkpoint
     * index if it does not exist.
     *
     * @param jobId the job's id, from {@link PropagationJob#id()} or {@link Checkpoint#jobId()}
     * @return the checkpoint, or empty when there is no such job
     * @throws PropagationException if the checkpoint cannot be read
     */
    public Optional<Checkpoint> checkpoint(String jobId) {
        try {
            return checkpoints.get(jobId).map(Checkpoints.Stored::checkpoint);
        } catch (ElasticsearchException e) {
            throw new PropagationException("cannot read checkpoint [" + jobId + "]: " + Reasons.of(e), e.status(), e);
        } catch (IOException e) {
            throw new PropagationException("cannot read checkpoint [" + jobId + "]: " + e, 0, e);
        }
    }

    /**
     * {@link #syncChild(DocRef)} for a child routed by its id.
     *
     * @param childId the id of the child, in {@link Relation#childIndex()}
     * @return what was done, as {@link #syncChild(DocRef)}
     * @throws PropagationException as {@link #syncChild(DocRef)}
     * @throws NullPointerException if {@code childId} is {@code null}
     * @throws IllegalArgumentException if {@code childId} is empty
     */
    public ChildSync syncChild(String childId) {
        return syncChild(DocRef.id(childId));
    }

    /**
     * Brings one child up to date with its parent's current copies: read the child, then its parent,
     * write conditionally, and on a conflict start again, under the retry policy. The writer-side half
     * of the protocol: code that creates or re-parents a child with copies it read from the parent
     * calls this after its write, so a parent change that happened meanwhile (and whose propagation may
     * have missed the child) is applied.
     *
     * @param child the child, in {@link Relation#childIndex()}, with the routing it was written with, e.g.
     *     {@code DocRef.id("c1").withRouting("u1")} (a reference naming an index must name the child index)
     * @return what was done: {@code WRITTEN}, {@code UP_TO_DATE}, {@code NOT_FOUND} or {@code NO_PARENT}
     * @throws PropagationException if a read or write fails (rejections that outlast the retry policy
     *     included), if concurrent edits of the child outlast the retry policy (status 409: the child may
     *     still carry old copies; call again), or the copies cannot be applied to this child (400)
     * @throws NullPointerException if {@code child} is {@code null}
     * @throws IllegalArgumentException if {@code child} names an index other than the child index
     */
    public ChildSync syncChild(DocRef child) {
        Objects.requireNonNull(child, "child cannot be null").requireIn(relation.childIndex());
        return sync(child.id(), child.routing());
    }

    private ChildSync sync(String childId, @Nullable String routing) {
        Attempts attempts = retryPolicy.attempts();
        while (true) {
            try {
                GetResponse<ObjectNode> child = client.get(
                        g -> {
                            g.index(relation.childIndex()).id(childId);
                            if (routing != null) {
                                ClientApi.routing(g, routing);
                            }
                            return g;
                        },
                        ObjectNode.class);
                if (!child.found()) {
                    return new ChildSync(childId, ChildSync.Status.NOT_FOUND, null, -1, attempts.attempt());
                }
                String parentId = JsonTrees.idText(JsonTrees.get(child.source(), relation.parentIdField()));
                if (parentId == null) {
                    return new ChildSync(childId, ChildSync.Status.NO_PARENT, null, -1, attempts.attempt());
                }
                GetResponse<ObjectNode> parent =
                        client.get(g -> g.index(relation.parentIndex()).id(parentId), ObjectNode.class);
                if (!parent.found()) {
                    return new ChildSync(childId, ChildSync.Status.NO_PARENT, parentId, -1, attempts.attempt());
                }
                long seqNo = parent.seqNo();
                ChildRewrite.Decision d = ChildRewrite.decide(
                        relation,
                        child.source(),
                        new ChildRewrite.Parent(parentId, parent.source(), seqNo),
                        ignoreStamps);
                if (d.kind() == ChildRewrite.Kind.UP_TO_DATE) {
                    return new ChildSync(childId, ChildSync.Status.UP_TO_DATE, parentId, seqNo, attempts.attempt());
                }
                if (d.kind() == ChildRewrite.Kind.INVALID) {
                    throw new PropagationException(
                            "cannot apply the copies of [" + relation.parentIndex() + "][" + parentId + "] to ["
                                    + relation.childIndex() + "][" + childId + "]: " + d.error(),
                            400,
                            null);
                }
                IndexResponse w = client.index(i -> {
                    i.index(child.index()).id(childId).ifSeqNo(child.seqNo()).ifPrimaryTerm(child.primaryTerm());
                    i.document(d.full());
                    if (routing != null) {
                        ClientApi.routing(i, routing);
                    }
                    return i;
                });
                Objects.requireNonNull(w);
                return new ChildSync(childId, ChildSync.Status.WRITTEN, parentId, seqNo, attempts.attempt());
            } catch (ElasticsearchException e) {
                if (e.status() == 409 || e.status() == 429) {
                    if (attempts.retryAfter(e)) {
                        continue;
                    }
                    throw new PropagationException(
                            "syncing [" + relation.childIndex() + "][" + childId + "] gave up after "
                                    + attempts.attempt() + " attempt(s) under the retry policy: " + Reasons.of(e)
                                    + (e.status() == 409
                                            ? " (the child keeps changing; it may still carry old copies, call again)"
                                            : ""),
                            e.status(),
                            e);
                }
                throw new PropagationException(
                        "syncing [" + relation.childIndex() + "][" + childId + "] failed: " + Reasons.of(e),
                        e.status(),
                        e);
            } catch (IOException e) {
                throw new PropagationException(
                        "syncing [" + relation.childIndex() + "][" + childId + "] failed: " + e, 0, e);
            }
        }
    }

    private PropagationJob launch(String jobId, String parentId, Checkpoints.@Nullable Stored carried) {
        JobControl control = new JobControl(jobId, parentId);
        CompletableFuture<PropagationResult> future = new CompletableFuture<>();
        executor.execute(() -> {
            try {
                future.complete(new JobRunner(settings, jobId, parentId, control, carried).run());
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        });
        return new PropagationJob(jobId, parentId, control, future);
    }

    private Checkpoints.Stored claim(String jobId) {
        Checks.id(jobId);
        try {
            Checkpoints.Stored stored = checkpoints
                    .get(jobId)
                    .orElseThrow(() -> new PropagationException(
                            "no propagation job [" + jobId + "] in [" + checkpoints.index() + "]", 404, null));
            Checkpoint c = stored.checkpoint();
            if (!relation.name().equals(c.relation())) {
                throw new PropagationException(
                        "job [" + jobId + "] belongs to relation [" + c.relation() + "], not [" + relation.name() + "]",
                        400,
                        null);
            }
            long age = Duration.between(c.updatedAt(), Instant.now()).toMillis();
            if (c.state() == JobState.RUNNING && !owner.equals(c.owner()) && age < staleAfter.toMillis()) {
                throw new PropagationException(
                        "job [" + jobId + "] is running in " + c.owner() + " (heartbeat " + age
                                + " ms ago, stale after " + staleAfter.toMillis()
                                + " ms); cancel it there or resume it once its heartbeat"
                                + " is stale",
                        409,
                        null);
            }
            Checkpoint claimed = new Checkpoint(
                    jobId,
                    c.relation(),
                    c.parentId(),
                    JobState.RUNNING,
                    owner,
                    c.parentSeqNo(),
                    c.counts(),
                    c.startedAt(),
                    Instant.now(),
                    null,
                    c.slices());
            // The version after the one read: refused if anyone wrote the checkpoint since (a compare-and-set).
            long version;
            try {
                version = checkpoints.write(claimed, stored.version());
            } catch (PropagationException e) {
                if (e.status() == 409) {
                    throw new PropagationException(
                            "job [" + jobId + "] was claimed by another process just now", 409, e);
                }
                throw e;
            }
            return new Checkpoints.Stored(claimed, version);
        } catch (ElasticsearchException e) {
            throw new PropagationException("cannot claim job [" + jobId + "]: " + Reasons.of(e), e.status(), e);
        } catch (IOException e) {
            throw new PropagationException("cannot claim job [" + jobId + "]: " + e, 0, e);
        }
    }

    private String newJobId(String parentId) {
        return relation.name() + ":" + parentId + ":"
                + UUID.randomUUID().toString().substring(0, 8);
    }

    @Override
    public String toString() {
        PropagationSettings p = settings;
        return "Propagator{" + relation + ", batchSize=" + p.batchSize()
                + (p.maxDocsPerSecond() > 0 ? ", maxDocsPerSecond=" + p.maxDocsPerSecond() : "") + ", writeMode="
                + p.writeMode() + ", streaming=" + p.streaming() + ", checkpoints="
                + checkpoints.index() + ", maxPasses=" + p.maxPasses() + ", bulksInFlight="
                + (p.bulksInFlight() == 0 ? "auto" : p.bulksInFlight()) + ", slices<=" + p.maxSlices() + ", policy="
                + retryPolicy + '}';
    }

    /** Builder for {@link Propagator}. Not thread-safe. */
    public static final class Builder {
        /** Default retry policy: 10 attempts per child, 10 ms doubling to 2 s with jitter, on 409 and 429. */
        public static final RetryPolicy DEFAULT_RETRY_POLICY = RetryPolicy.of(r -> r.maxAttempts(10)
                .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(10), 2.0, Duration.ofSeconds(2))));

        private @Nullable ElasticsearchClient client;
        private @Nullable Relation relation;
        private String checkpointIndex = "esrel-propagation";
        private int batchSize = 1000;
        private double maxDocsPerSecond;
        private RetryPolicy retryPolicy = DEFAULT_RETRY_POLICY;
        private PropagationListener listener = PropagationListener.NO_OP;
        private WriteMode writeMode = WriteMode.INDEX;
        private DocStream.Mode streaming = DocStream.Mode.AUTO;
        private Duration keepAlive = Duration.ofMinutes(5);
        private boolean refresh = true;
        private int maxPasses = 3;
        private Duration checkpointInterval = Duration.ofSeconds(5);
        private Duration staleAfter = Duration.ofSeconds(60);
        private Executor executor = r -> {
            Thread t = new Thread(r, "esrel-propagation");
            t.setDaemon(true);
            t.start();
        };
        private boolean ignoreStamps;
        private int maxReportedFailures = 100;
        private boolean prefetch = true;
        private int bulksInFlight = 0; // auto: BulksInFlight.of(client) at job start
        private int slices = SlicePlan.DEFAULT_MAX;

        private Builder() {}

        /**
         * Required.
         *
         * @param client the client every read and write goes through; not closed by esrel
         * @return this builder
         * @throws NullPointerException if {@code client} is {@code null}
         */
        public Builder client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        /**
         * Required.
         *
         * @param relation the relation to keep up to date
         * @return this builder
         * @throws NullPointerException if {@code relation} is {@code null}
         */
        public Builder relation(Relation relation) {
            this.relation = Objects.requireNonNull(relation, "relation cannot be null");
            return this;
        }

        /**
         * Where checkpoints live; created on first use (1 shard). Default {@code esrel-propagation}.
         *
         * @param index the checkpoint index; propagators that should see each other's jobs share it
         * @return this builder
         * @throws NullPointerException if {@code index} is {@code null}
         * @throws IllegalArgumentException if {@code index} is blank
         */
        public Builder checkpointIndex(String index) {
            Objects.requireNonNull(index, "checkpointIndex cannot be null");
            if (index.isBlank()) {
                throw new IllegalArgumentException("checkpointIndex cannot be blank");
            }
            this.checkpointIndex = index;
            return this;
        }

        /**
         * Children per page and per {@code _bulk}. Default 1000.
         *
         * @param batchSize the maximum number of children per page and per request
         * @return this builder
         * @throws IllegalArgumentException unless 1..10,000
         */
        public Builder batchSize(int batchSize) {
            this.batchSize = Checks.between(batchSize, 1, 10_000, "batchSize");
            return this;
        }

        /**
         * At most this many children per second (pages are paced, and shrunk to about a second's worth).
         * Default 0: unlimited.
         *
         * @param perSecond the maximum rate in children per second; 0 for no limit
         * @return this builder
         * @throws IllegalArgumentException if negative or not a number
         */
        public Builder maxDocsPerSecond(double perSecond) {
            if (!(perSecond >= 0) || Double.isInfinite(perSecond)) {
                throw new IllegalArgumentException("maxDocsPerSecond must be >= 0, got " + perSecond);
            }
            this.maxDocsPerSecond = perSecond;
            return this;
        }

        /**
         * Per child: how often a conflicting (409) or rejected (429) write is tried again and how long to
         * wait. Reads are retried on 429 with the same shape. Default {@link #DEFAULT_RETRY_POLICY}.
         *
         * @param policy the retry policy, also used by {@link Propagator#syncChild}
         * @return this builder
         * @throws NullPointerException if {@code policy} is {@code null}
         */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = Objects.requireNonNull(policy, "retryPolicy cannot be null");
            return this;
        }

        /**
         * Follows every job of this propagator. Default {@link PropagationListener#NO_OP}.
         *
         * @param listener the listener; called from the threads that run jobs, so it must be thread-safe
         *     when several jobs run at once
         * @return this builder
         * @throws NullPointerException if {@code listener} is {@code null}
         */
        public Builder listener(PropagationListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener cannot be null");
            return this;
        }

        /**
         * How children are rewritten. Default {@link WriteMode#INDEX}.
         *
         * @param mode the write mode
         * @return this builder
         * @throws NullPointerException if {@code mode} is {@code null}
         */
        public Builder writeMode(WriteMode mode) {
            this.writeMode = Objects.requireNonNull(mode, "writeMode cannot be null");
            return this;
        }

        /**
         * Point in time, scroll, or point in time falling back to scroll (the default).
         *
         * @param mode how the children are streamed
         * @return this builder
         * @throws NullPointerException if {@code mode} is {@code null}
         */
        public Builder streaming(DocStream.Mode mode) {
            this.streaming = Objects.requireNonNull(mode, "streaming cannot be null");
            return this;
        }

        /**
         * Keep-alive of the point in time or scroll between pages. Default 5 minutes.
         *
         * @param keepAlive the keep-alive; longer than writing a page takes, throttling included
         * @return this builder
         * @throws NullPointerException if {@code keepAlive} is {@code null}
         * @throws IllegalArgumentException if not positive
         */
        public Builder keepAlive(Duration keepAlive) {
            this.keepAlive = Checks.positive(keepAlive, "keepAlive");
            return this;
        }

        /**
         * Refresh the child index before each pass, so children written just before (or during) the job
         * are seen. Default true; turn off only when children are never written while parents change.
         *
         * @param refresh false to skip the refresh
         * @return this builder
         */
        public Builder refresh(boolean refresh) {
            this.refresh = refresh;
            return this;
        }

        /**
         * The main pass plus catch-up passes, at most. A pass runs only if the previous one found
         * children to handle. Default 3.
         *
         * @param maxPasses the maximum number of passes, the main pass included
         * @return this builder
         * @throws IllegalArgumentException if less than 1
         */
        public Builder maxPasses(int maxPasses) {
            if (maxPasses < 1) {
                throw new IllegalArgumentException("maxPasses must be at least 1, got " + maxPasses);
            }
            this.maxPasses = maxPasses;
            return this;
        }

        /**
         * The checkpoint (and heartbeat) is written at most this often; zero means after every page. Default 5 s.
         *
         * @param interval the shortest time between two checkpoint writes of a job
         * @return this builder
         * @throws NullPointerException if {@code interval} is {@code null}
         * @throws IllegalArgumentException if negative
         */
        public Builder checkpointInterval(Duration interval) {
            this.checkpointInterval = Checks.notNegative(interval, "checkpointInterval");
            return this;
        }

        /**
         * A {@code RUNNING} job whose heartbeat is older than this is taken to have crashed. Default 60 s;
         * keep it well above {@link #checkpointInterval} and the time a page takes.
         *
         * @param staleAfter the heartbeat age after which a {@code RUNNING} job may be taken over
         * @return this builder
         * @throws NullPointerException if {@code staleAfter} is {@code null}
         * @throws IllegalArgumentException if negative
         */
        public Builder staleAfter(Duration staleAfter) {
            this.staleAfter = Checks.notNegative(staleAfter, "staleAfter");
            return this;
        }

        /**
         * Runs background jobs. Default: a new daemon thread per job.
         *
         * @param executor runs each job started with {@link Propagator#start}; one task per job, for the whole job
         * @return this builder
         * @throws NullPointerException if {@code executor} is {@code null}
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor cannot be null");
            return this;
        }

        /**
         * Visit every child of the parent and judge by the copied values alone (one pass). For the one
         * run after the parent index was rebuilt and its seq_nos restarted, which makes old stamps
         * meaningless. Default false.
         *
         * @param ignore true to ignore the stamps (and run a single pass)
         * @return this builder
         */
        public Builder ignoreStamps(boolean ignore) {
            this.ignoreStamps = ignore;
            return this;
        }

        /**
         * Failures kept in the result (all go to the listener). Default 100.
         *
         * @param n the maximum number of {@link ChildFailure}s in {@link PropagationResult#failures()}; 0 for none
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder maxReportedFailures(int n) {
            this.maxReportedFailures = Checks.notNegative(n, "maxReportedFailures");
            return this;
        }

        /**
         * Bulk requests one job keeps in flight. By default the job chooses at its start from what the cluster's write
         * path can take: the smallest {@code write} thread pool among the data nodes, at least 2 and at most 4 (a
         * bulk takes one write thread per primary it touches; a second one in flight hides the client's own gap
         * between bulks, deciding the next page; beyond a few the node only queues them). Reading the pools
         * ({@code GET _nodes/thread_pool}) needs the {@code monitor} cluster privilege; without it the job uses 2.
         * With 1, each page is written before the next is sent.
         *
         * <p>With 2 or more, pages are decided in order and written concurrently: faster where the cluster has idle
         * write threads, and still correct, because every write is conditional on its own child and a catch-up pass
         * starts only after every write of the pass before it has finished. The listener is still called one call at
         * a time per job, but {@link PropagationListener#beforeBulk}, {@link PropagationListener#onConflict},
         * {@link PropagationListener#onRejected} and {@link PropagationListener#onFailure} come from the writing
         * threads, and calls for two pages in flight may interleave. Memory grows by one page per request in flight.
         * The limit is per job, not per {@link #slices(int) slice}: the slices of a job share it.
         *
         * @param n the number of {@code _bulk} requests in flight per job
         * @return this builder
         * @throws IllegalArgumentException unless 1..16
         */
        public Builder bulksInFlight(int n) {
            this.bulksInFlight = Checks.between(n, 1, 16, "bulksInFlight");
            return this;
        }

        /**
         * The most slices a job reads the children with. A job reads them with a sliced point in time, one slice per
         * primary shard of the child index up to this bound, each slice on its own thread; their pages share the
         * job's {@link #bulksInFlight(int) bulks in flight} (the total stays within it), the throttle, the
         * checkpoint and the listener. A child index of one shard is read as one stream, and so are children routed
         * by their parent (one shard), a job streaming with {@link DocStream.Mode#SCROLL}, and a cluster that cannot
         * open a point in time. Default 1: one stream, because on the one machine it was measured on (2 cores, 3
         * nodes, 6 shards) six slices were slower than one stream; a slice's bulk touches only its own shard, where
         * one stream's bulk fans out to every primary. Measure on your cluster (benchmark {@code propagation-shards})
         * before raising it.
         *
         * <p>Why per shard: one stream reads, decides and submits every page in turn, so the shards of the child
         * index wait on one thread; a slice per shard reads each shard on its own. Never more slices than shards:
         * beyond one per shard Elasticsearch splits shards by document, and each slice then visits every document
         * of its shards. Memory grows by a page (two with {@link #prefetch(boolean)}) per slice.
         *
         * @param max the most slices per job; 1 to read every child with one stream
         * @return this builder
         * @throws IllegalArgumentException unless 1..64
         */
        public Builder slices(int max) {
            this.slices = Checks.between(max, 1, SlicePlan.MAX, "slices");
            return this;
        }

        /**
         * Read the next page of children (and the parent after it) while writing this one. Default true.
         *
         * @param prefetch false to read each page only once the one before it has been handled
         * @return this builder
         */
        public Builder prefetch(boolean prefetch) {
            this.prefetch = prefetch;
            return this;
        }

        /**
         * Builds the propagator. The first esrel entry point built on a client's transport sends it one
         * request ({@code GET /}) to check that the server accepts this client line; the checkpoint
         * index is created later, on first use.
         *
         * @return the new propagator
         * @throws NullPointerException if the client or relation is missing
         * @throws IllegalStateException if the server refuses the requests of this client line
         */
        public Propagator build() {
            return new Propagator(this);
        }
    }
}
