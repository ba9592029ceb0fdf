package io.github.esrel.lock;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.ExceptionTranslator;
import io.github.esrel.internal.Clients;
import io.github.esrel.path.TreePath;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Hierarchical locks on paths, leased and fenced, namespaced by a target index: the provider
 * interface. Two implementations with the same semantics: {@link PluginTreeLocks} on the esrel
 * plugin's REST API (atomic on the server) and {@link DocumentTreeLocks} on lock documents (any
 * cluster, no plugin, no scripts). {@link #of} picks the plugin when the cluster has it.
 *
 * <pre>{@code
 * try (TreeLocks locks = TreeLocks.of(b -> b.client(es).index("fs"))) {
 *     AcquireResult<TreeLock> r = locks.acquire(LockRequest.of(l -> l
 *         .path("/clinton").mode(LockMode.EXCLUSIVE).maxWait(Duration.ofSeconds(5))));
 *     try (TreeLock lock = r.orThrow()) {
 *         renameDirectory("/clinton", "/zach", lock.token());
 *     }
 * }
 * }</pre>
 *
 * <h2>Semantics</h2>
 * <ul>
 *   <li>Locking path P in mode M takes a shared lock on every proper ancestor of P and an M lock on P,
 *       all or nothing. Shared is compatible with shared; exclusive conflicts with everything on the
 *       same path. So an exclusive lock on a directory conflicts with every lock below it, and a lock
 *       below an exclusively locked directory is refused. {@code /} is a path: exclusive on {@code /}
 *       ({@link LockRequest#global()}) is the global lock.</li>
 *   <li>Locks are not reentrant: a second exclusive request for a held path is refused, even from the
 *       same owner.</li>
 *   <li>Every grant is a lease ({@link Builder#ttl default 60 s}); a lease that ends is gone, with its
 *       ancestor locks, without any cleanup by its holder. Handles renew their lease in the background
 *       until closed.</li>
 *   <li>Every grant carries a fencing token strictly greater than every earlier token for its path.</li>
 *   <li>A busy lock is a value ({@link AcquireResult} with the conflicts); waiting
 *       ({@link LockRequest.Builder#maxWait}) never holds part of a tree, so it cannot deadlock.</li>
 * </ul>
 *
 * <h2>Lost answers</h2>
 * A request whose answer is lost (the connection closed or timed out after it was sent, a gateway answered 502 or
 * 504) may have been applied. The low-level clients send such a request again to their next host; a client of one
 * host, or one that does not resend writes, gets the I/O failure, and the provider sends it again itself (five sends
 * at most, 750 ms of pauses between them). Either way every lock request is recognised as the same request by its
 * identity: the grant id the plugin's provider sends with each acquisition (the plugin answers a copy of an acquire
 * it granted with that grant, and a copy of a release it made with "released"), the grant a lock document's holder
 * carries (read back, it shows whether the write was applied), and a renewal's token. What the caller sees:
 * <ul>
 *   <li>{@link #acquire}: the grant, if one was made, with its token and a lease counted from the first send; never
 *       a grant left on the server that nobody knows of. When the outcome stays unknown, what the acquisition may
 *       hold is released by its identity and the acquisition asks again within its wait, or, the wait over, fails
 *       with status {@link TreeLockException#UNAVAILABLE} saying so; only if that release fails too may such a lock
 *       stay until its lease ends (the exception says that as well).</li>
 *   <li>{@link TreeLock#release()} and {@link TreeLock#close()}: a release that was applied counts as done, so
 *       {@link LeaseLostException} means that the lease really was lost before the release. A release whose
 *       outcome cannot be learnt fails with a {@link TreeLockException} (the lock then ends with its lease), never
 *       with a {@code LeaseLostException}.</li>
 *   <li>{@link TreeLock#renew()}: renewed, or lost, as the server says; a renewal sent twice only sets the lease
 *       twice. One whose outcome cannot be learnt fails with a {@link TreeLockException}; the lock is held until its
 *       lease ends, and background renewal tries again.</li>
 * </ul>
 * With the plugin this needs a plugin that knows grant ids (a node that does not makes the provider fall back to
 * requests without them, which are not told apart); the plugin remembers a released grant id for two minutes, at
 * most 10,000 per index. The fallback's reasoning about a release rests on the clocks of its clients agreeing, as
 * its leases do.
 *
 * <p>Implementations are thread-safe. A provider owns a small pool of daemon threads for renewals;
 * {@link #close()} releases the locks still open and stops them.
 */
public interface TreeLocks extends AutoCloseable {

    /** Which implementation serves the locks. */
    enum Backend {
        /** {@link #PLUGIN} when the tree-lock endpoints answer, else {@link #DOCUMENTS}. */
        AUTO,
        /** {@link PluginTreeLocks}: the esrel plugin's {@code _treelock} REST API. */
        PLUGIN,
        /** {@link DocumentTreeLocks}: lock documents written with {@code if_seq_no}/{@code if_primary_term}. */
        DOCUMENTS
    }

    /**
     * The plugin's provider if the cluster serves the tree-lock API on every node, otherwise the
     * lock-document fallback; the choice is made once, here.
     *
     * @param fn sets the options on the builder it is given and returns it
     * @return the new provider; close it when done
     * @throws TreeLockException if the cluster cannot be asked
     * @throws IllegalStateException if the server refuses every request of this client line (an 8.x
     *     server with elasticsearch-java 9.x, say)
     */
    static TreeLocks of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * A builder with the defaults; {@link Builder#build()} makes the provider.
     *
     * @return a new builder
     */
    static Builder builder() {
        return new Builder();
    }

    /**
     * The namespace: the target index whose paths are locked.
     *
     * @return the index name
     */
    String index();

    /**
     * {@link Backend#PLUGIN} or {@link Backend#DOCUMENTS}.
     *
     * @return the implementation serving the locks, never {@link Backend#AUTO}
     */
    Backend backend();

    /**
     * Locks a path, waiting up to the request's {@link LockRequest#maxWait()} for conflicting locks
     * to go.
     *
     * @param request what to lock and how, not {@code null}
     * @return the held lock (close it), or the conflicts that remained when the wait ran out
     * @throws TreeLockException if the cluster cannot be reached or refuses the request, or the thread
     *     is interrupted while waiting; with status {@link TreeLockException#UNAVAILABLE} also when an
     *     auto-renewed lock was granted but the answer arrived after the lease had ended and the wait had run out
     *     (the grant is given back: such a lock is never handed out already lost; within the wait it is simply
     *     asked for again)
     * @throws IllegalStateException if the provider is closed
     */
    AcquireResult<TreeLock> acquire(LockRequest request);

    /**
     * {@link #acquire(LockRequest)} of {@code path} in {@code mode}, failing fast.
     *
     * @param path the normalised path to lock
     * @param mode the mode, not {@code null}
     * @return the held lock (close it), or the conflicts
     * @throws IllegalArgumentException if the path is not valid ({@link TreePath#of})
     * @throws TreeLockException as {@link #acquire(LockRequest)}
     */
    default AcquireResult<TreeLock> acquire(String path, LockMode mode) {
        return acquire(LockRequest.of(b -> b.path(path).mode(mode)));
    }

    /**
     * {@link #acquire(LockRequest)} of {@code path} in {@code mode}, waiting up to {@code maxWait}.
     *
     * @param path the normalised path to lock
     * @param mode the mode, not {@code null}
     * @param maxWait how long to wait for conflicting locks to go; zero fails fast
     * @return the held lock (close it), or the conflicts that remained when the wait ran out
     * @throws IllegalArgumentException if the path is not valid ({@link TreePath#of}) or {@code maxWait}
     *     is negative
     * @throws TreeLockException as {@link #acquire(LockRequest)}
     */
    default AcquireResult<TreeLock> acquire(String path, LockMode mode, Duration maxWait) {
        return acquire(LockRequest.of(b -> b.path(path).mode(mode).maxWait(maxWait)));
    }

    /**
     * The live locks at or below {@code prefix}, by path: a snapshot, stale as soon as it returns.
     * Only granted paths are listed, each with the mode it was granted in; the shared locks every grant
     * holds on its ancestors are implied, not listed.
     *
     * @param prefix the subtree to list, {@link TreePath#ROOT} for all
     * @return the live locks, one per granted path; empty when there are none
     * @throws TreeLockException if the cluster cannot be reached or refuses the request
     */
    List<LockInfo> list(TreePath prefix);

    /**
     * {@link #list(TreePath)} of every live lock in the namespace.
     *
     * @return the live locks, one per granted path; empty when there are none
     * @throws TreeLockException if the cluster cannot be reached or refuses the request
     */
    default List<LockInfo> list() {
        return list(TreePath.ROOT);
    }

    /**
     * Releases the locks acquired through this provider that are still open (best effort: a failed
     * release ends with its lease) and stops renewing. Further acquisitions throw
     * {@link IllegalStateException}. Idempotent.
     */
    @Override
    void close();

    /**
     * Configuration shared by both providers. Setters validate at once; the fallback-only settings
     * ({@link #lockIndex}, {@link #clock}, {@link #createLockIndex}) are ignored by the plugin's.
     */
    final class Builder {
        /** Default lease. */
        public static final Duration DEFAULT_TTL = Duration.ofSeconds(60);
        /** Default lock index of the fallback. */
        public static final String DEFAULT_LOCK_INDEX = "esrel-treelocks";
        /** Default pause between attempts while waiting: 10 ms doubling up to 500 ms, jittered. */
        public static final Backoff DEFAULT_WAIT_BACKOFF =
                Backoff.exponentialWithJitter(Duration.ofMillis(10), 2.0, Duration.ofMillis(500));

        @Nullable
        ElasticsearchClient client;

        @Nullable
        String index;

        @Nullable
        String owner;

        Duration ttl = DEFAULT_TTL;
        TreeLockListener listener = TreeLockListener.NO_OP;
        Backoff waitBackoff = DEFAULT_WAIT_BACKOFF;
        Sleeper sleeper = Sleeper.SYSTEM;
        int renewalThreads = 1;
        Backend backend = Backend.AUTO;
        String lockIndex = DEFAULT_LOCK_INDEX;
        Clock clock = Clock.systemUTC();
        boolean createLockIndex = true;
        ExceptionTranslator exceptionTranslator = ExceptionTranslator.NONE;

        Builder() {}

        /**
         * Required: the client whose transport (auth, TLS, nodes) is used.
         *
         * @param client the client, not {@code null}
         * @return this builder
         */
        public Builder client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        /**
         * Required: the namespace, by convention the target index whose documents the paths name
         * ({@code fs}). Locks in different namespaces never interact. The index must exist, with either provider:
         * acquire, list, renew and release in a namespace without an index fail with a {@link TreeLockException}
         * of status 404 (the plugin authorizes locks per index, so it needs one; the fallback checks the same).
         *
         * @param index the namespace
         * @return this builder
         * @throws IllegalArgumentException if blank
         */
        public Builder index(String index) {
            this.index = Engine.requireIndex(index);
            return this;
        }

        /**
         * The owner of locks requested without one: shown to the requests it blocks. Default:
         * {@code <HOSTNAME>-<pid>-<random>}, unique per provider.
         *
         * @param owner the default owner, not {@code null}
         * @return this builder
         * @throws NullPointerException if {@code owner} is {@code null}
         * @throws IllegalArgumentException if blank or longer than {@value LockRequest#MAX_OWNER_LENGTH} UTF-8 bytes
         */
        public Builder owner(String owner) {
            this.owner = LockRequest.checkOwner(owner);
            return this;
        }

        /**
         * The lease of locks requested without one. Default {@link #DEFAULT_TTL 60 s}.
         *
         * @param ttl the default lease, at least 1 ms
         * @return this builder
         * @throws NullPointerException if {@code ttl} is {@code null}
         * @throws IllegalArgumentException if not positive
         */
        public Builder ttl(Duration ttl) {
            this.ttl = LockRequest.checkTtl(ttl);
            return this;
        }

        /**
         * Translates the {@link TreeLockException} of {@link AcquireResult#orThrow()} (a lock still busy when the
         * wait ran out) into the exception the application's framework expects. Default
         * {@link ExceptionTranslator#NONE}.
         *
         * @param exceptionTranslator the translator, not {@code null}
         * @return this builder
         */
        public Builder exceptionTranslator(ExceptionTranslator exceptionTranslator) {
            this.exceptionTranslator =
                    Objects.requireNonNull(exceptionTranslator, "exceptionTranslator cannot be null");
            return this;
        }

        /**
         * Hears the acquisitions, renewals, lost leases and releases of every lock of this provider. Default
         * {@link TreeLockListener#NO_OP}.
         *
         * @param listener the listener, not {@code null}
         * @return this builder
         */
        public Builder listener(TreeLockListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener cannot be null");
            return this;
        }

        /**
         * The pause between attempts while a request waits (the fallback polls; the plugin waits on the
         * server and pauses only between its requests). Default {@link #DEFAULT_WAIT_BACKOFF}. Also the
         * pause between re-reads of a lock document another client changed under the fallback.
         *
         * @param waitBackoff the backoff, not {@code null}
         * @return this builder
         */
        public Builder waitBackoff(Backoff waitBackoff) {
            this.waitBackoff = Objects.requireNonNull(waitBackoff, "waitBackoff cannot be null");
            return this;
        }

        /**
         * How to pause; default {@link Sleeper#SYSTEM}.
         *
         * @param sleeper the sleeper, not {@code null}
         * @return this builder
         */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper cannot be null");
            return this;
        }

        /**
         * Daemon threads that renew leases in the background. Default 1: a renewal is one short request
         * per lock every third of its lease.
         *
         * @param renewalThreads the size of the renewal thread pool
         * @return this builder
         * @throws IllegalArgumentException if less than 1
         */
        public Builder renewalThreads(int renewalThreads) {
            if (renewalThreads < 1) {
                throw new IllegalArgumentException("renewalThreads must be at least 1, got " + renewalThreads);
            }
            this.renewalThreads = renewalThreads;
            return this;
        }

        /**
         * Which implementation {@link #build()} returns. Default {@link Backend#AUTO}.
         *
         * @param backend the backend, not {@code null}
         * @return this builder
         */
        public Builder backend(Backend backend) {
            this.backend = Objects.requireNonNull(backend, "backend cannot be null");
            return this;
        }

        /**
         * Fallback only: the index holding the lock documents of every namespace. Default
         * {@value #DEFAULT_LOCK_INDEX}. Never delete it while locks may be in use: fencing tokens
         * restart with it.
         *
         * @param lockIndex the name of the lock index
         * @return this builder
         * @throws IllegalArgumentException if blank
         */
        public Builder lockIndex(String lockIndex) {
            if (lockIndex == null || lockIndex.isBlank()) {
                throw new IllegalArgumentException("lockIndex must not be blank");
            }
            this.lockIndex = lockIndex;
            return this;
        }

        /**
         * Fallback only: the clock leases are written and judged with. Default {@link Clock#systemUTC()}.
         * The fallback is as safe as the clocks of its clients agree: keep them synchronised (NTP) to
         * well within the lease.
         *
         * @param clock the clock, not {@code null}
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock cannot be null");
            return this;
        }

        /**
         * Fallback only: whether to create the lock index (hidden, one shard, {@code 0-1} replicas) on
         * first use if it does not exist. Default {@code true}; without it, create the index yourself
         * with {@link DocumentTreeLocks#lockIndexMapping()}.
         *
         * @param createLockIndex false to require an existing lock index
         * @return this builder
         */
        public Builder createLockIndex(boolean createLockIndex) {
            this.createLockIndex = createLockIndex;
            return this;
        }

        /**
         * The provider of the chosen {@link #backend}; for {@link Backend#AUTO}, the plugin's if the
         * tree-lock endpoints answer on this cluster (and every node lists the plugin), else the fallback.
         *
         * @return the new provider; close it when done
         * @throws NullPointerException if the client is not set
         * @throws IllegalArgumentException if the index is not set
         * @throws TreeLockException if {@link Backend#AUTO} cannot ask the cluster
         * @throws IllegalStateException if the server refuses every request of this client line (an 8.x
         *     server with elasticsearch-java 9.x, say)
         */
        public TreeLocks build() {
            Objects.requireNonNull(client, "client cannot be null");
            String target = Engine.requireIndex(index);
            switch (backend) {
                case PLUGIN:
                    return new PluginTreeLocks(this);
                case DOCUMENTS:
                    return new DocumentTreeLocks(this);
                default:
                    return PluginTreeLocks.available(Clients.internal(client), target)
                            ? new PluginTreeLocks(this)
                            : new DocumentTreeLocks(this);
            }
        }
    }
}
