package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.commit.GroupCommitter;
import io.github.esrel.plugin.lock.commit.TaskScheduler;
import io.github.esrel.plugin.lock.commit.VersionedStore;
import io.github.esrel.plugin.lock.grant.Caller;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.GrantPage;
import io.github.esrel.plugin.lock.grant.TreePath;
import io.github.esrel.plugin.lock.store.FencingTokens;
import io.github.esrel.plugin.lock.store.GrantStore;
import io.github.esrel.plugin.lock.store.LockState;
import io.github.esrel.plugin.lock.store.TreeLockIndex;
import io.github.esrel.plugin.lock.table.LockTableStore;
import java.util.function.LongSupplier;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.support.ContextPreservingActionListener;
import org.elasticsearch.client.internal.Client;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.threadpool.ThreadPool;
import org.jspecify.annotations.Nullable;

/**
 * Tree locks with leases and fencing tokens, kept in the system index {@link TreeLockIndex#NAME}. Each lock namespace
 * (a target index) has one table of grants there: by default ({@link GrantStore}) a head document, which holds the
 * last token and the changes of the latest rounds, and one document per grant; with {@code esrel.treelock.store:
 * table} ({@link LockTableStore}, the design of esrel 0.1) one document holding the whole table.
 *
 * <h2>Why it is correct</h2>
 * Every change of a namespace is a read-modify-write of one document, its head: a real-time GET, a decision on the
 * table as of that head ({@link LockState}, pure: the same decisions whichever store keeps the table), and a write of
 * the next head conditional on the read's {@code _seq_no}/{@code _primary_term} (or a create when there was none).
 * Elasticsearch applies a conditional write on the primary only if nothing changed since the read, so the decisions
 * of all nodes form one sequence, each taken on the table its predecessor wrote: two conflicting grants can only
 * coexist if one decision ignored the other, which the condition rules out. The table as of a head is the grant
 * documents plus that head's changes: a round writes the grant documents of the round before it, and waits for them
 * to be acknowledged, before it writes its own head. A node decides on the table it keeps in memory only while the
 * head it reads names that table, or names the rounds that bring it up to date; else it rebuilds it from the grant
 * documents. A grant is answered only after its head was acknowledged, that is, replicated to every in-sync copy,
 * and Elasticsearch only promotes an in-sync copy, so an answered grant, and the last token with it, survives the
 * loss of the primary. The head is never deleted, and every token is above both the last one and the clock
 * ({@link FencingTokens}), so every token is greater than every token issued before in that namespace. The table
 * store keeps the whole table in that one document instead: the same argument, without grant documents to write
 * first or tables kept in memory.
 *
 * <h2>How it runs</h2>
 * The read-modify-writes are group commits ({@link GroupCommitter}): the requests of one namespace on one node
 * share a read and a write, so only contention between nodes costs conflicts, and a conflicting write is
 * redone on a fresh read. Nothing blocks a thread. An acquire that must wait holds nothing ({@link Acquirer}):
 * it sleeps until a conflicting lease ends, a backoff passes or a release on this node wakes it, and then
 * queues again. All access to the lock index happens in a stashed context with the lock index's origin
 * ({@link #asSystem}); callers' contexts are restored when they are answered.
 */
public final class TreeLockService {

    private final ThreadContext threadContext;
    private final TaskScheduler scheduler;
    private final TreeLockLimits limits;
    private final LongSupplier clock;
    private final GroupCommitter<LockState> committer;
    private final Acquirer acquirer;

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
        this(
                threadPool.getThreadContext(),
                store(TreeLockSettings.STORE.get(settings), client, TaskScheduler.of(threadPool)),
                TaskScheduler.of(threadPool),
                new TreeLockLimits(settings, clusterSettings),
                System::currentTimeMillis);
    }

    /** The store choice: the grant store, or the one-document table store of esrel 0.1. */
    private static VersionedStore<LockState> store(String kind, Client client, TaskScheduler scheduler) {
        return switch (kind) {
            case TreeLockSettings.STORE_TABLE -> new LockTableStore(client, scheduler, System::currentTimeMillis);
            default -> new GrantStore(client, scheduler, System::currentTimeMillis);
        };
    }

    /** @param clock epoch milliseconds; leases are measured with it */
    TreeLockService(
            ThreadContext threadContext,
            VersionedStore<LockState> store,
            TaskScheduler scheduler,
            TreeLockLimits limits,
            LongSupplier clock) {
        this.threadContext = threadContext;
        this.scheduler = scheduler;
        this.limits = limits;
        this.clock = clock;
        this.committer = new GroupCommitter<>(store, scheduler, this::committed);
        this.acquirer = new Acquirer(limits, clock, scheduler, this::submit);
    }

    /**
     * Acquires the command's mode on its path and shared on the path's proper ancestors, waiting up to the
     * command's {@code wait} for conflicting grants to go.
     *
     * @param command      what to lock, valid
     * @param cancellation cancelling ends a wait, and the acquire takes nothing
     * @param listener     gets the {@link Acquisition}, granted or with the conflicts, or the failure: an
     *                     {@code IllegalArgumentException} for a ttl or wait over the node's maximum, a 429
     *                     {@code ElasticsearchStatusException} when the table is full, a
     *                     {@code TaskCancelledException} when cancelled, a 503 when the lock index stays
     *                     unavailable (saying how long it was retried and the last cause); called in the
     *                     caller's thread context
     */
    public void acquire(AcquireCommand command, Cancellation cancellation, ActionListener<Acquisition> listener) {
        acquirer.acquire(command, cancellation, callersContext(listener));
    }

    /**
     * Releases the grant, and with it the shared locks it took on the ancestors.
     *
     * @param grant    the grant to release
     * @param caller   who asks: a grant bound to another user is released only if it overrides bindings
     * @param listener gets {@code null} once released, or a {@code ResourceNotFoundException} (404) when the
     *                 path has no live grant, an {@code ElasticsearchStatusException} (409) when another owner
     *                 or token holds it, a {@link GrantBindings#refused} 403 when it is bound to another user, a
     *                 503 when the lock index stays unavailable; called in the caller's thread context
     */
    public void release(GrantRef grant, Caller caller, ActionListener<Void> listener) {
        release(grant, null, caller, listener);
    }

    /**
     * Releases the grant, and with it the shared locks it took on the ancestors; with a grant id, as
     * {@link GrantIds} describes: the id is remembered as released, and the same release sent again (after its
     * answer was lost, to this node or another) is answered released, not 404.
     *
     * @param grant    the grant to release; its token may be 0 when {@code grantId} is given, to release whatever
     *                 grant that id acquired on the path for the owner (none, and the id is still spent)
     * @param grantId  the grant id the grant was acquired with, valid, or null for none
     * @param caller   who asks: a grant bound to another user is released only if it overrides bindings
     * @param listener as for {@link #release(GrantRef, Caller, ActionListener)}
     */
    public void release(GrantRef grant, @Nullable String grantId, Caller caller, ActionListener<Void> listener) {
        long nonce = grantId == null ? 0 : GrantIds.nonce(grantId);
        HolderMutation.Change release = (table, now, earlierWriteMayHaveApplied) -> table.release(
                grant.path(), grant.owner(), grant.token(), nonce, caller, now, earlierWriteMayHaveApplied);
        ActionListener<LockState.Held> released = callersContext(listener).map(result -> null);
        submit(
                grant.namespace(),
                new HolderMutation(grant, release, clock, released),
                scheduler.nanoTime() + limits.retryNanos());
    }

    /**
     * Sets the lease of the grant to end {@code ttl} from now.
     *
     * @param grant    the grant to renew
     * @param caller   who asks: a grant bound to another user is renewed only if it overrides bindings
     * @param ttl      the new lease, or null for the default (60 s, or the node's maximum if shorter)
     * @param listener gets the renewed grant, or an {@code IllegalArgumentException} for a ttl over the node's
     *                 maximum, or the failures of {@link #release}; called in the caller's thread context
     */
    public void renew(GrantRef grant, Caller caller, @Nullable TimeValue ttl, ActionListener<Grant> listener) {
        long ttlMillis;
        try {
            ttlMillis = limits.ttlMillis(ttl);
        } catch (IllegalArgumentException e) {
            listener.onFailure(e);
            return;
        }
        HolderMutation.Change renew = (table, now, ignored) ->
                table.renew(grant.path(), grant.owner(), grant.token(), caller, ttlMillis, now);
        ActionListener<LockState.Held> renewed = callersContext(listener).map(LockState.Held::grant);
        submit(
                grant.namespace(),
                new HolderMutation(grant, renew, clock, renewed),
                scheduler.nanoTime() + limits.retryNanos());
    }

    /**
     * The live grants of the namespace on {@code prefix} or below it, a page at a time. Reads the table in real
     * time (sharing the read of a round of the namespace's group commit) and writes nothing; a namespace without a
     * table lists no grants. Transient failures are retried as for the other operations.
     *
     * @param namespace the concrete index
     * @param prefix    the top of the subtree, valid; {@link TreePath#ROOT} for every grant
     * @param after     the last path of the previous page, or null from the start
     * @param maxPaths  the most paths the page lists (each with all its holders), at least 1
     * @param listener  gets the page, sorted by path, then token, or the failure (a 503 when the lock index
     *                  stays unavailable); called in the caller's thread context
     */
    public void list(
            String namespace, String prefix, @Nullable String after, int maxPaths, ActionListener<GrantPage> listener) {
        ActionListener<GrantPage> answer = callersContext(listener);
        // A mutation that changes nothing: answered right after its round's read, and retried like the others.
        GroupCommitter.Mutation<LockState> read = new GroupCommitter.Mutation<>() {
            @Override
            public GroupCommitter.Decision<LockState> apply(LockState table) {
                GrantPage page = table.liveAtOrBelow(prefix, clock.getAsLong(), after, maxPaths);
                return new GroupCommitter.Decision<>(table, () -> answer.onResponse(page));
            }

            @Override
            public void fail(Exception e) {
                answer.onFailure(e);
            }
        };
        submit(namespace, read, scheduler.nanoTime() + limits.retryNanos());
    }

    private void submit(String namespace, GroupCommitter.Mutation<LockState> mutation, long retryDeadlineNanos) {
        asSystem(() -> committer.submit(namespace, mutation, retryDeadlineNanos));
    }

    /** After a write that released a grant, the namespace's waiting acquires may succeed now. */
    private void committed(String namespace, LockState before, LockState after) {
        if (after.releasedSince(before)) {
            acquirer.wakeAll(namespace);
        }
    }

    private <T> ActionListener<T> callersContext(ActionListener<T> listener) {
        return ContextPreservingActionListener.wrapPreservingContext(listener, threadContext);
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
}
