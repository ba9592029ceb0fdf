package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.LockTable.AcquireResult;
import io.github.esrel.plugin.lock.LockTable.HolderResult;
import io.github.esrel.plugin.lock.action.AcquireTreeLockRequest;
import io.github.esrel.plugin.lock.action.AcquireTreeLockResponse;
import io.github.esrel.plugin.lock.action.ListTreeLocksRequest;
import io.github.esrel.plugin.lock.action.ListTreeLocksResponse;
import io.github.esrel.plugin.lock.action.ReleaseTreeLockRequest;
import io.github.esrel.plugin.lock.action.ReleaseTreeLockResponse;
import io.github.esrel.plugin.lock.action.RenewTreeLockRequest;
import io.github.esrel.plugin.lock.action.RenewTreeLockResponse;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.elasticsearch.ElasticsearchStatusException;
import org.elasticsearch.ExceptionsHelper;
import org.elasticsearch.ResourceNotFoundException;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.DocWriteRequest;
import org.elasticsearch.action.get.GetRequest;
import org.elasticsearch.action.get.GetResponse;
import org.elasticsearch.action.index.IndexRequest;
import org.elasticsearch.action.support.ContextPreservingActionListener;
import org.elasticsearch.action.support.TransportActions;
import org.elasticsearch.client.internal.Client;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.elasticsearch.core.Nullable;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.index.IndexNotFoundException;
import org.elasticsearch.index.engine.VersionConflictEngineException;
import org.elasticsearch.node.NodeClosedException;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.tasks.CancellableTask;
import org.elasticsearch.tasks.TaskCancelledException;
import org.elasticsearch.threadpool.Scheduler;
import org.elasticsearch.threadpool.ThreadPool;
import org.elasticsearch.transport.ConnectTransportException;
import org.elasticsearch.xcontent.XContentBuilder;
import org.elasticsearch.xcontent.XContentFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * Tree locks with leases and fencing tokens, kept in the system index {@link TreeLockIndex#NAME}: one
 * document per lock namespace (a target index) holding its whole {@link LockTable}.
 *
 * <h2>Why it is correct</h2>
 * Every change is a read-modify-write of that one document: a real-time GET, a decision on the snapshot read
 * ({@link LockTable}, pure and unit-tested), and a write conditional on the snapshot's
 * {@code _seq_no}/{@code _primary_term} (or a create when there was no document). Elasticsearch applies a
 * conditional write on the primary only if nothing changed since the read, so the decisions of all nodes form
 * one sequence, each taken on the table its predecessor wrote: two conflicting grants can only coexist if one
 * decision ignored the other, which the condition rules out. A grant is answered only after its write was
 * acknowledged, that is, replicated to every in-sync copy, and Elasticsearch only promotes an in-sync copy,
 * so an answered grant, and the token counter with it, survives the loss of the primary. The counter lives in
 * the same document and is never reset (the document is never deleted), so every token is greater than every
 * token issued before in that namespace.
 *
 * <h2>How it runs</h2>
 * Requests for one namespace queue on the node that received them; one round at a time per namespace and node
 * reads the table, applies every queued request in order, and writes once (group commit): contention between
 * threads of a node costs no conflicts, only contention between nodes does, and a conflicting write is simply
 * redone on a fresh read. Nothing blocks a thread: I/O is asynchronous and decisions run on the generic pool.
 * An acquire that must wait holds nothing: it leaves the queue, sleeps on the scheduler until the earliest
 * conflicting lease ends, a backoff passes (at most {@value #MAX_POLL_MILLIS} ms) or a release on this node
 * wakes it, and then queues again. All access to the lock index happens in a stashed context with the lock
 * index's origin ({@link #asSystem}); callers' contexts are restored when they are answered.
 */
public class TreeLockService {

    private static final Logger logger = LogManager.getLogger(TreeLockService.class);

    /** How long a request keeps retrying transient failures (no primary, node gone) after its wait. */
    static final TimeValue RETRY_TIMEOUT = TimeValue.timeValueSeconds(30);
    /** The timeout of each write, so that a write stuck waiting for a primary comes back to the retry loop. */
    static final TimeValue WRITE_TIMEOUT = TimeValue.timeValueSeconds(10);
    /** The most requests decided in one round. */
    static final int MAX_BATCH = 256;
    /** The longest a waiting acquire sleeps before looking again (releases on other nodes are not signalled). */
    static final long MAX_POLL_MILLIS = 500;

    private final Client client;
    private final ThreadPool threadPool;
    private final ThreadContext threadContext;
    private final Executor executor;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, Namespace> namespaces = new ConcurrentHashMap<>();

    private volatile TimeValue maxTtl;
    private volatile TimeValue maxWait;
    private volatile int maxLocks;

    /**
     * Creates the node's service, measuring leases with the node's wall clock. The plugin creates one per
     * node in {@code createComponents}; the transport actions get it injected.
     *
     * @param client          the node client, used to read and write the lock index
     * @param threadPool      the node's thread pool: decisions run on its generic pool, waits on its scheduler
     * @param clusterSettings the cluster settings, to follow updates of the dynamic {@link TreeLockSettings}
     * @param settings        the node settings, for the initial values of the {@link TreeLockSettings}
     */
    public TreeLockService(Client client, ThreadPool threadPool, ClusterSettings clusterSettings, Settings settings) {
        this(client, threadPool, clusterSettings, settings, System::currentTimeMillis);
    }

    /** @param clock epoch milliseconds; leases are measured with it */
    TreeLockService(Client client, ThreadPool threadPool, ClusterSettings clusterSettings, Settings settings, LongSupplier clock) {
        this.client = client;
        this.threadPool = threadPool;
        this.threadContext = threadPool.getThreadContext();
        this.executor = threadPool.generic();
        this.clock = clock;
        this.maxTtl = TreeLockSettings.MAX_TTL.get(settings);
        this.maxWait = TreeLockSettings.MAX_WAIT.get(settings);
        this.maxLocks = TreeLockSettings.MAX_LOCKS_PER_INDEX.get(settings);
        clusterSettings.addSettingsUpdateConsumer(TreeLockSettings.MAX_TTL, v -> maxTtl = v);
        clusterSettings.addSettingsUpdateConsumer(TreeLockSettings.MAX_WAIT, v -> maxWait = v);
        clusterSettings.addSettingsUpdateConsumer(TreeLockSettings.MAX_LOCKS_PER_INDEX, v -> maxLocks = v);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Entry points: called by the transport actions with a validated request and the resolved namespace.

    /**
     * Acquires {@code mode} on the path and shared on its proper ancestors, waiting up to the request's
     * {@code wait} for conflicting grants to go.
     *
     * @param namespace the concrete target index
     * @param request   the validated acquire request
     * @param task      cancelling it (the HTTP client went away) ends a wait; may be null
     * @param listener  gets the response, granted or with the conflicts (a 409), or the failure: a 429
     *                  {@code ElasticsearchStatusException} when the table is full, a
     *                  {@code TaskCancelledException} when the task was cancelled, a 503 when the lock index
     *                  stays unavailable; called in the caller's thread context
     * @throws IllegalArgumentException (to the listener) for a ttl or wait over the node's maximum
     */
    public void acquire(String namespace, AcquireTreeLockRequest request, @Nullable CancellableTask task, ActionListener<AcquireTreeLockResponse> listener) {
        long ttl;
        long wait;
        try {
            ttl = ttlMillis(request.ttl());
            wait = waitMillis(request.waitTime());
        } catch (IllegalArgumentException e) {
            listener.onFailure(e);
            return;
        }
        long nonce = ThreadLocalRandom.current().nextLong();
        long start = System.nanoTime();
        AcquireOp op = new AcquireOp(
            namespace,
            request.path(),
            request.mode(),
            request.owner(),
            ttl,
            nonce,
            start + TimeUnit.MILLISECONDS.toNanos(wait),
            start + TimeUnit.MILLISECONDS.toNanos(wait) + RETRY_TIMEOUT.nanos(),
            task,
            ContextPreservingActionListener.wrapPreservingContext(listener, threadContext)
        );
        if (task != null) {
            // Wakes a sleeping wait at once; a queued one sees the flag when its round starts.
            task.addListener(() -> wake(op));
        }
        submit(op);
    }

    /**
     * Releases the grant with the request's path, owner and token.
     *
     * @param namespace the concrete target index
     * @param request   the validated release request
     * @param listener  gets the response, or a {@code ResourceNotFoundException} (404) when the path has no
     *                  live grant, or an {@code ElasticsearchStatusException} (409) when it is held by another
     *                  owner or token; called in the caller's thread context
     */
    public void release(String namespace, ReleaseTreeLockRequest request, ActionListener<ReleaseTreeLockResponse> listener) {
        submit(
            new ReleaseOp(
                namespace,
                request.path(),
                request.owner(),
                request.token(),
                System.nanoTime() + RETRY_TIMEOUT.nanos(),
                ContextPreservingActionListener.wrapPreservingContext(listener, threadContext)
            )
        );
    }

    /**
     * Sets the lease of the grant with the request's path, owner and token to end {@code ttl} from now.
     *
     * @param namespace the concrete target index
     * @param request   the validated renew request
     * @param listener  gets the response with the new expiry, or an {@code IllegalArgumentException} for a
     *                  ttl over the node's maximum, a {@code ResourceNotFoundException} (404) when the path has
     *                  no live grant, or an {@code ElasticsearchStatusException} (409) when it is held by another
     *                  owner or token; called in the caller's thread context
     */
    public void renew(String namespace, RenewTreeLockRequest request, ActionListener<RenewTreeLockResponse> listener) {
        long ttl;
        try {
            ttl = ttlMillis(request.ttl());
        } catch (IllegalArgumentException e) {
            listener.onFailure(e);
            return;
        }
        submit(
            new RenewOp(
                namespace,
                request.path(),
                request.owner(),
                request.token(),
                ttl,
                System.nanoTime() + RETRY_TIMEOUT.nanos(),
                ContextPreservingActionListener.wrapPreservingContext(listener, threadContext)
            )
        );
    }

    /**
     * The live grants of the namespace on the request's path or below (all of them without a path). Reads
     * the table once, in real time, and writes nothing; a namespace without a table lists no grants.
     *
     * @param namespace the concrete target index
     * @param request   the validated list request
     * @param listener  gets the response or the failure; called in the caller's thread context
     */
    public void list(String namespace, ListTreeLocksRequest request, ActionListener<ListTreeLocksResponse> listener) {
        String prefix = request.path() == null ? TreePath.ROOT : request.path();
        ActionListener<ListTreeLocksResponse> answer = ContextPreservingActionListener.wrapPreservingContext(listener, threadContext);
        asSystem(() -> client.get(new GetRequest(TreeLockIndex.NAME, namespace).realtime(true), new ActionListener<>() {
                @Override
                public void onResponse(GetResponse response) {
                    ActionListener.completeWith(
                        answer,
                        () -> new ListTreeLocksResponse(namespace, Snapshot.of(response).table.liveAtOrBelow(prefix, clock.getAsLong()))
                    );
                }

                @Override
                public void onFailure(Exception e) {
                    if (ExceptionsHelper.unwrapCause(e) instanceof IndexNotFoundException) {
                        answer.onResponse(new ListTreeLocksResponse(namespace, List.of()));
                    } else {
                        answer.onFailure(e);
                    }
                }
            }));
    }

    /**
     * Runs {@code action} in a fresh context with the lock index's origin, the only one allowed to touch the
     * lock index; whatever it forks or schedules inherits that context. The caller's context is back when
     * this returns.
     *
     * <p>The stash drops the REST layer's "no system index access" header, which opens the system index.
     * With security enabled the origin also decides the user: {@link TreeLockIndex#ORIGIN} runs as
     * Elasticsearch's internal {@code _xpack} user, which may create and write the index. A context merely
     * marked as system runs as {@code _system}, which may read and write but not create it (verified on a
     * node: {@code indices:admin/auto_create is unauthorized for user [_system]}).
     */
    private void asSystem(Runnable action) {
        ThreadContext.StoredContext callers = threadContext.stashWithOrigin(TreeLockIndex.ORIGIN);
        try {
            action.run();
        } finally {
            callers.restore();
        }
    }

    long ttlMillis(@Nullable TimeValue ttl) {
        TimeValue max = maxTtl;
        if (ttl == null) {
            return Math.min(TreeLockSettings.DEFAULT_TTL.millis(), max.millis());
        }
        if (ttl.millis() > max.millis()) {
            throw new IllegalArgumentException(
                "ttl [" + ttl.getStringRep() + "] is longer than the maximum [" + max.getStringRep() + "] (setting ["
                    + TreeLockSettings.MAX_TTL.getKey() + "]); renew a shorter lease instead"
            );
        }
        return ttl.millis();
    }

    long waitMillis(@Nullable TimeValue wait) {
        TimeValue max = maxWait;
        if (wait == null) {
            return 0;
        }
        if (wait.millis() > max.millis()) {
            throw new IllegalArgumentException(
                "wait [" + wait.getStringRep() + "] is longer than the maximum [" + max.getStringRep() + "] (setting ["
                    + TreeLockSettings.MAX_WAIT.getKey() + "]); retry instead"
            );
        }
        return wait.millis();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Queues and rounds.

    /** The requests of one namespace on this node. Guarded by itself. */
    private static final class Namespace {
        final String name;
        final ArrayDeque<Op> pending = new ArrayDeque<>();
        final Set<AcquireOp> sleeping = new HashSet<>();
        boolean running;
        /** Removed from the map; a new instance takes its place. */
        boolean retired;

        Namespace(String name) {
            this.name = name;
        }
    }

    /** A table read: the table, and the condition for replacing it. */
    private record Snapshot(LockTable table, boolean exists, long seqNo, long primaryTerm) {
        static final Snapshot ABSENT = new Snapshot(LockTable.EMPTY, false, 0, 0);

        static Snapshot of(GetResponse response) {
            if (response.isExists() == false) {
                return ABSENT;
            }
            return new Snapshot(LockTable.fromSource(response.getSourceAsMap()), true, response.getSeqNo(), response.getPrimaryTerm());
        }
    }

    /** What a request decided on a table: the table after it, and how to answer once that table is stored. */
    private record Decision(LockTable table, Runnable answer) {}

    private abstract static class Op {
        final String namespace;
        /** Transient failures are retried until then (System.nanoTime()). */
        final long retryDeadlineNanos;
        /** A write carrying this request's change failed in a way that does not tell whether it was applied. */
        boolean writeMayHaveApplied;

        Op(String namespace, long retryDeadlineNanos) {
            this.namespace = namespace;
            this.retryDeadlineNanos = retryDeadlineNanos;
        }

        abstract Decision decide(LockTable table, long now);

        abstract void fail(Exception e);

        boolean cancelled() {
            return false;
        }
    }

    private void submit(Op op) {
        asSystem(() -> {
            while (true) {
                Namespace ns = namespaces.computeIfAbsent(op.namespace, Namespace::new);
                boolean start;
                synchronized (ns) {
                    if (ns.retired) {
                        continue;
                    }
                    ns.pending.add(op);
                    start = ns.running == false;
                    ns.running = true;
                }
                if (start) {
                    fork(() -> nextRound(ns), ns);
                }
                return;
            }
        });
    }

    /**
     * Runs on the generic pool. Only a node that is shutting down refuses; then the round goes on here, and its
     * requests fail on the closed node's client rather than never being answered.
     */
    private void fork(Runnable runnable, Namespace ns) {
        try {
            executor.execute(runnable);
        } catch (RuntimeException e) {
            runnable.run();
        }
    }

    /** Takes the next batch of the namespace's queue, or ends its rounds when the queue is empty. */
    private void nextRound(Namespace ns) {
        List<Op> batch = new ArrayList<>();
        synchronized (ns) {
            while (batch.size() < MAX_BATCH && ns.pending.isEmpty() == false) {
                batch.add(ns.pending.poll());
            }
            if (batch.isEmpty()) {
                ns.running = false;
                if (ns.sleeping.isEmpty()) {
                    ns.retired = true;
                    namespaces.remove(ns.name, ns);
                }
                return;
            }
        }
        attempt(ns, batch, 0);
    }

    private void attempt(Namespace ns, List<Op> ops, int attempt) {
        List<Op> batch = new ArrayList<>(ops.size());
        for (Op op : ops) {
            if (op.cancelled()) {
                op.fail(new TaskCancelledException("the client went away"));
            } else {
                batch.add(op);
            }
        }
        if (batch.isEmpty()) {
            fork(() -> nextRound(ns), ns);
            return;
        }
        client.get(new GetRequest(TreeLockIndex.NAME, ns.name).realtime(true), new ActionListener<>() {
            @Override
            public void onResponse(GetResponse response) {
                fork(() -> {
                    Snapshot snapshot;
                    try {
                        snapshot = Snapshot.of(response);
                    } catch (RuntimeException e) {
                        failBatch(ns, batch, e);
                        return;
                    }
                    decideAndWrite(ns, batch, attempt, snapshot);
                }, ns);
            }

            @Override
            public void onFailure(Exception e) {
                if (ExceptionsHelper.unwrapCause(e) instanceof IndexNotFoundException) {
                    // The first lock ever: the create below makes the index from its system descriptor.
                    fork(() -> decideAndWrite(ns, batch, attempt, Snapshot.ABSENT), ns);
                } else {
                    retryOrFail(ns, batch, attempt, e);
                }
            }
        });
    }

    private void decideAndWrite(Namespace ns, List<Op> batch, int attempt, Snapshot snapshot) {
        long now = clock.getAsLong();
        LockTable table = snapshot.table;
        List<Decision> decisions = new ArrayList<>(batch.size());
        List<Op> changers = new ArrayList<>();
        for (Op op : batch) {
            Decision decision;
            try {
                decision = op.decide(table, now);
            } catch (RuntimeException e) {
                decision = new Decision(table, () -> op.fail(e));
            }
            if (decision.table != table) {
                changers.add(op);
            }
            table = decision.table;
            decisions.add(decision);
        }
        if (changers.isEmpty()) {
            // Nothing to store: conflicts, "not held", grants found from an earlier write.
            answer(ns, decisions, false);
            return;
        }
        LockTable next = table.pruned(now);
        boolean freed = next.grants().size() < snapshot.table.grants().size() || freesSomething(snapshot.table, next);
        IndexRequest write;
        try {
            XContentBuilder source = next.toXContent(XContentFactory.jsonBuilder(), ns.name, now);
            write = new IndexRequest(TreeLockIndex.NAME).id(ns.name).source(source).timeout(WRITE_TIMEOUT);
        } catch (Exception e) {
            failBatch(ns, batch, e);
            return;
        }
        if (snapshot.exists) {
            write.setIfSeqNo(snapshot.seqNo).setIfPrimaryTerm(snapshot.primaryTerm);
        } else {
            write.opType(DocWriteRequest.OpType.CREATE);
        }
        client.index(write, new ActionListener<>() {
            @Override
            public void onResponse(org.elasticsearch.action.DocWriteResponse response) {
                fork(() -> answer(ns, decisions, freed), ns);
            }

            @Override
            public void onFailure(Exception e) {
                // Even a version conflict can follow an applied write (Elasticsearch retries a replicated
                // write whose primary failed), so no request that changed the table may assume its change
                // is absent.
                changers.forEach(op -> op.writeMayHaveApplied = true);
                if (ExceptionsHelper.unwrapCause(e) instanceof VersionConflictEngineException) {
                    long backoff = attempt < 3 ? 0 : ThreadLocalRandom.current().nextLong(1, Math.min(100, 5L << Math.min(attempt, 10)));
                    retryLater(ns, batch, attempt + 1, backoff, e);
                } else {
                    retryOrFail(ns, batch, attempt, e);
                }
            }
        });
    }

    /** Whether some grant of {@code before} is gone from (or shortened in) {@code after}: waiters may now succeed. */
    private static boolean freesSomething(LockTable before, LockTable after) {
        Set<Long> tokens = after.grants().stream().map(Grant::token).collect(Collectors.toSet());
        return before.grants().stream().anyMatch(g -> tokens.contains(g.token()) == false);
    }

    private void answer(Namespace ns, List<Decision> decisions, boolean freed) {
        for (Decision d : decisions) {
            try {
                d.answer.run();
            } catch (Exception e) {
                logger.warn("answering a tree lock request failed", e);
            }
        }
        if (freed) {
            wakeAll(ns);
        }
        nextRound(ns);
    }

    private void failBatch(Namespace ns, List<Op> batch, Exception e) {
        batch.forEach(op -> op.fail(e));
        fork(() -> nextRound(ns), ns);
    }

    private void retryOrFail(Namespace ns, List<Op> batch, int attempt, Exception e) {
        if (retryable(e) == false) {
            failBatch(ns, batch, e);
            return;
        }
        long backoff = Math.min(2000, 50L << Math.min(attempt, 6));
        retryLater(ns, batch, attempt + 1, ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1), e);
    }

    /** Retries the batch after {@code delayMillis}, failing the requests whose retry deadline has passed by then. */
    private void retryLater(Namespace ns, List<Op> batch, int attempt, long delayMillis, Exception cause) {
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
        List<Op> remaining = new ArrayList<>(batch.size());
        for (Op op : batch) {
            if (at - op.retryDeadlineNanos > 0) {
                op.fail(gaveUp(cause));
            } else {
                remaining.add(op);
            }
        }
        if (remaining.isEmpty()) {
            fork(() -> nextRound(ns), ns);
        } else if (delayMillis == 0) {
            fork(() -> attempt(ns, remaining, attempt), ns);
        } else {
            try {
                threadPool.schedule(() -> attempt(ns, remaining, attempt), TimeValue.timeValueMillis(delayMillis), executor);
            } catch (RuntimeException e) {
                failBatch(ns, remaining, e);
            }
        }
    }

    private static Exception gaveUp(Exception cause) {
        if (ExceptionsHelper.unwrapCause(cause) instanceof VersionConflictEngineException) {
            return new ElasticsearchStatusException(
                "the lock table was changed concurrently on every attempt for " + RETRY_TIMEOUT + "; retry",
                RestStatus.SERVICE_UNAVAILABLE,
                cause
            );
        }
        return cause;
    }

    static boolean retryable(Exception e) {
        Throwable t = ExceptionsHelper.unwrapCause(e);
        if (TransportActions.isShardNotAvailableException(t) || t instanceof NodeClosedException || t instanceof ConnectTransportException) {
            return true;
        }
        RestStatus status = ExceptionsHelper.status(t);
        return status == RestStatus.SERVICE_UNAVAILABLE
            || status == RestStatus.TOO_MANY_REQUESTS
            || status == RestStatus.GATEWAY_TIMEOUT
            || status == RestStatus.REQUEST_TIMEOUT;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Waiting.

    /** Puts a conflicting acquire to sleep until it should look again, or answers it when its wait is over. */
    private void sleepOrAnswer(AcquireOp op, AcquireResult result, long now) {
        long remainingNanos = op.waitDeadlineNanos - System.nanoTime();
        if (remainingNanos <= 0 || op.cancelled()) {
            if (op.cancelled()) {
                op.fail(new TaskCancelledException("the client went away"));
            } else if (result.outcome() == LockTable.AcquireOutcome.FULL) {
                op.fail(tableFull(op.namespace));
            } else {
                op.listener.onResponse(AcquireTreeLockResponse.conflict(op.namespace, result.conflicts()));
            }
            return;
        }
        long delay = Math.min(MAX_POLL_MILLIS, 10L << Math.min(op.sleeps++, 6));
        for (Grant g : result.conflicts()) {
            // Wake right after the first conflicting lease ends.
            delay = Math.min(delay, Math.max(1, g.expiresAtMillis() - now + 1));
        }
        delay = Math.max(1, Math.min(delay, TimeUnit.NANOSECONDS.toMillis(remainingNanos) + 1));
        Namespace ns = namespaces.get(op.namespace);
        // The namespace is not retired: this runs inside one of its rounds.
        synchronized (ns) {
            ns.sleeping.add(op);
        }
        try {
            long millis = delay;
            asSystem(() -> op.timer = threadPool.schedule(() -> wake(op), TimeValue.timeValueMillis(millis), executor));
        } catch (RuntimeException e) {
            synchronized (ns) {
                ns.sleeping.remove(op);
            }
            op.fail(e);
        }
    }

    /** Queues a sleeping acquire again; does nothing if it is not asleep. */
    private void wake(AcquireOp op) {
        Namespace ns = namespaces.get(op.namespace);
        if (ns == null) {
            return;
        }
        boolean start;
        synchronized (ns) {
            if (ns.sleeping.remove(op) == false) {
                return;
            }
            ns.pending.add(op);
            start = ns.running == false;
            ns.running = true;
        }
        Scheduler.Cancellable timer = op.timer;
        if (timer != null) {
            timer.cancel();
        }
        if (start) {
            asSystem(() -> fork(() -> nextRound(ns), ns));
        }
    }

    /** Queues every sleeping acquire of the namespace again: something was released here. */
    private void wakeAll(Namespace ns) {
        List<AcquireOp> sleepers;
        synchronized (ns) {
            sleepers = new ArrayList<>(ns.sleeping);
        }
        sleepers.forEach(this::wake);
    }

    private static ElasticsearchStatusException tableFull(String namespace) {
        return new ElasticsearchStatusException(
            "the lock table of [" + namespace + "] is full: it holds the maximum number of live locks (setting ["
                + TreeLockSettings.MAX_LOCKS_PER_INDEX.getKey() + "]); retry after some are released or expire",
            RestStatus.TOO_MANY_REQUESTS
        );
    }

    // ---------------------------------------------------------------------------------------------------------
    // The requests.

    private final class AcquireOp extends Op {
        final String path;
        final LockMode mode;
        final String owner;
        final long ttlMillis;
        final long nonce;
        final long waitDeadlineNanos;
        @Nullable
        final CancellableTask task;
        final ActionListener<AcquireTreeLockResponse> listener;
        int sleeps;
        volatile Scheduler.Cancellable timer;

        AcquireOp(
            String namespace,
            String path,
            LockMode mode,
            String owner,
            long ttlMillis,
            long nonce,
            long waitDeadlineNanos,
            long retryDeadlineNanos,
            @Nullable CancellableTask task,
            ActionListener<AcquireTreeLockResponse> listener
        ) {
            super(namespace, retryDeadlineNanos);
            this.path = path;
            this.mode = mode;
            this.owner = owner;
            this.ttlMillis = ttlMillis;
            this.nonce = nonce;
            this.waitDeadlineNanos = waitDeadlineNanos;
            this.task = task;
            this.listener = listener;
        }

        @Override
        Decision decide(LockTable table, long now) {
            AcquireResult result = table.acquire(path, mode, owner, ttlMillis, nonce, now, maxLocks);
            if (result.outcome() == LockTable.AcquireOutcome.GRANTED) {
                return new Decision(result.table(), () -> listener.onResponse(AcquireTreeLockResponse.acquired(namespace, result.grant())));
            }
            return new Decision(table, () -> sleepOrAnswer(this, result, now));
        }

        @Override
        void fail(Exception e) {
            listener.onFailure(e);
        }

        @Override
        boolean cancelled() {
            return task != null && task.isCancelled();
        }
    }

    private static final class ReleaseOp extends Op {
        final String path;
        final String owner;
        final long token;
        final ActionListener<ReleaseTreeLockResponse> listener;

        ReleaseOp(String namespace, String path, String owner, long token, long retryDeadlineNanos, ActionListener<ReleaseTreeLockResponse> listener) {
            super(namespace, retryDeadlineNanos);
            this.path = path;
            this.owner = owner;
            this.token = token;
            this.listener = listener;
        }

        @Override
        Decision decide(LockTable table, long now) {
            HolderResult result = table.release(path, owner, token, now, writeMayHaveApplied);
            return switch (result.outcome()) {
                case DONE -> new Decision(result.table(), () -> listener.onResponse(ReleaseTreeLockResponse.RELEASED));
                case NOT_HELD -> new Decision(table, () -> listener.onFailure(notHeld(namespace, path, owner, token)));
                case HELD_BY_OTHER -> new Decision(table, () -> listener.onFailure(heldByOther(namespace, path, owner, token, result.holders())));
            };
        }

        @Override
        void fail(Exception e) {
            listener.onFailure(e);
        }
    }

    private static final class RenewOp extends Op {
        final String path;
        final String owner;
        final long token;
        final long ttlMillis;
        final ActionListener<RenewTreeLockResponse> listener;

        RenewOp(
            String namespace,
            String path,
            String owner,
            long token,
            long ttlMillis,
            long retryDeadlineNanos,
            ActionListener<RenewTreeLockResponse> listener
        ) {
            super(namespace, retryDeadlineNanos);
            this.path = path;
            this.owner = owner;
            this.token = token;
            this.ttlMillis = ttlMillis;
            this.listener = listener;
        }

        @Override
        Decision decide(LockTable table, long now) {
            HolderResult result = table.renew(path, owner, token, ttlMillis, now);
            return switch (result.outcome()) {
                case DONE -> new Decision(
                    result.table(),
                    () -> listener.onResponse(new RenewTreeLockResponse(result.grant().expiresAtMillis()))
                );
                case NOT_HELD -> new Decision(table, () -> listener.onFailure(notHeld(namespace, path, owner, token)));
                case HELD_BY_OTHER -> new Decision(table, () -> listener.onFailure(heldByOther(namespace, path, owner, token, result.holders())));
            };
        }

        @Override
        void fail(Exception e) {
            listener.onFailure(e);
        }
    }

    static ResourceNotFoundException notHeld(String namespace, String path, String owner, long token) {
        return new ResourceNotFoundException(
            "no live lock on [{}] in [{}]: owner [{}] with token [{}] never held it, released it, or its lease expired",
            TreePath.shorten(path),
            namespace,
            TreePath.shorten(owner),
            token
        );
    }

    static ElasticsearchStatusException heldByOther(String namespace, String path, String owner, long token, List<Grant> holders) {
        String held = holders.stream()
            .limit(10)
            .map(g -> "owner [" + TreePath.shorten(g.owner()) + "] token [" + g.token() + "]")
            .collect(Collectors.joining(", "));
        return new ElasticsearchStatusException(
            "the lock on [{}] in [{}] is held by {}{}, not by owner [{}] with token [{}]",
            RestStatus.CONFLICT,
            TreePath.shorten(path),
            namespace,
            held,
            holders.size() > 10 ? " and " + (holders.size() - 10) + " more" : "",
            TreePath.shorten(owner),
            token
        );
    }
}
