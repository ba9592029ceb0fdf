package io.github.esrel.lock;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.mapping.TypeMapping;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import io.github.esrel.internal.Checks;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.Indices;
import io.github.esrel.internal.ShardFailures;
import io.github.esrel.lock.LockDocs.Holder;
import io.github.esrel.lock.LockDocs.Target;
import io.github.esrel.path.TreePath;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Tree locks for clusters without the esrel plugin: seed 000's lock documents, made safe without
 * scripts and with leases. Needs only document reads and writes on one lock index (default
 * {@value TreeLocks.Builder#DEFAULT_LOCK_INDEX}, hidden, created on first use); the test distribution,
 * without painless and without {@code _delete_by_query}, is enough.
 *
 * <pre>{@code
 * try (DocumentTreeLocks locks = DocumentTreeLocks.of(b -> b.client(es).index("fs"))) {
 *     try (TreeLock lock = locks.acquire(LockRequest.exclusive("/clinton")).orThrow()) { ... }      // tree lock
 *     try (TreeLock lock = locks.acquire(LockRequest.global()).orThrow()) { ... }                  // global lock
 *     try (DocumentLocks docs = locks.lockDocuments(List.of("1", "2"), Duration.ZERO).orThrow()) { ... }
 * }
 * }</pre>
 *
 * <h2>How a tree lock is taken</h2>
 * One lock document per path and namespace holds the live holders of that path (owner, mode, fencing
 * token, lease end) and the last token issued for it. To lock P in mode M, the client walks P's
 * lineage root first: for each path it reads the document, and if no live holder conflicts, writes it
 * back with its own holder added ({@code op_type=create} if new, else {@code if_seq_no} +
 * {@code if_primary_term} of the read); on a version conflict it reads again and decides again. If a
 * live holder conflicts, it removes its holders from the paths taken so far (leaf first) and reports
 * the conflict; a wait then pauses and starts over, holding nothing.
 *
 * <h2>Why it is safe</h2>
 * <ul>
 *   <li><b>Mutual exclusion per path.</b> Every grant on a path is a conditional write of that path's
 *       document that is based on a read in which no live conflicting holder existed. Writes to one
 *       document are linearizable on its primary, and a conditional write succeeds only if no write
 *       came between the read and it. So of two conflicting grants on one path, the second one's read
 *       sees the first's holder (or its write fails and is redone on a read that does): two conflicting
 *       live holders never coexist on a document.</li>
 *   <li><b>Tree semantics.</b> Two locks conflict only on a path where both have a holder (an exclusive
 *       lock on {@code /a} meets a lock on {@code /a/b} on {@code /a}, where the latter holds a shared
 *       lock), so per-path exclusion is tree exclusion. A holder on {@code /a/b} first holds
 *       {@code /a}, so there is no window in which the leaf is held without the ancestors.</li>
 *   <li><b>No deadlock.</b> Paths are taken in one global order (root first), a conflict releases
 *       everything taken so far, and waiting happens only with nothing held.</li>
 *   <li><b>Leases.</b> Holders carry {@code expires_at}; a holder whose lease has passed is ignored and
 *       dropped by the next write, so a dead client's locks, ancestors included, are free after its
 *       lease. All holders of one grant share one expiry, written before the first write; the handle
 *       counts its lease from before that write too. Safety across clients assumes their clocks
 *       agree to well within the lease ({@link TreeLocks.Builder#clock}); a holder that loses its
 *       lease finds out on its next renewal and reports it.</li>
 *   <li><b>Fencing tokens strictly increase per path.</b> Each grant on a path writes
 *       {@code token = max(last + 1, now × 1000)} (now in epoch milliseconds, the plugin's formula) into
 *       that path's document, in the same conditional write that adds the holder, and the new holder
 *       carries it. Lock documents are never deleted (a free path keeps its document with no holders),
 *       so {@code last} never goes back; two grants cannot both write over the same {@code last}, since
 *       the second write's read is stale and it fails; and each token exceeds the {@code last} it was
 *       computed from. Hence every token is greater than all earlier ones for the path, across expiry,
 *       client restarts, and primary failover for every acknowledged write. The clock term keeps tokens
 *       increasing even if the lock index is lost, as long as clocks do not go back (no path sees 1000
 *       grants per millisecond), and makes tokens of different paths roughly follow time; only the
 *       per-path order is guaranteed.</li>
 * </ul>
 *
 * <h2>Costs and limits</h2>
 * A lock at depth d costs d + 1 reads and d + 1 writes to acquire, as many again to release, and
 * every lock writes the root document: the root is the hot spot under load. Waiting is polling with
 * backoff, without fairness. {@link #list} refreshes the lock index. One document per path ever locked
 * stays in the lock index. Use the plugin where it is installed: one request per operation, waiting on
 * the server.
 *
 * <h2>Failures</h2>
 * When the lock index is unavailable and Elasticsearch gives up (no active primary, a node that cannot be
 * reached), the operation throws a {@link TreeLockException} with status 503 and
 * {@link TreeLockException#retryable()} true, as {@link PluginTreeLocks} does for the same outage. Binding a
 * grant to the user ({@link LockRequest.Builder#bindToUser}) is not supported and refused.
 *
 * <p><b>Lost answers.</b> A write whose answer is lost, or that meets a version conflict (which a copy of it, sent
 * again on the way after the first was applied, meets too), may have been applied: the document is read again and
 * the step decided again, recognising the grant's own holder. An acquire that finds its holder there has taken the
 * path; a renewal finds it renewed and writes the same again; a release that finds its holder gone after its own
 * removal counts as done, since it decided that removal on a read where the lease had not ended by this client's
 * clock, and no other client takes a holder before its lease ended by its own (clocks agreeing, as the leases
 * assume). A read or write without an answer is sent again (five sends at most); an acquisition whose outcome stays
 * unknown removes its holders by its grant before it reports so.
 *
 * <h2>Document locks</h2>
 * {@link #lockDocuments} is seed 000's document locking: lock documents for many ids created (or
 * taken over from expired holders) in one bulk request carrying the owner, all or nothing, leased and
 * renewed like tree locks, and released by the owner with one bulk request of conditional writes (no
 * {@code _delete_by_query}). They are independent of tree locks.
 */
public final class DocumentTreeLocks extends EngineTreeLocks {

    private final LockDocs docs;
    private final PathStore store = new PathStore();

    DocumentTreeLocks(TreeLocks.Builder b) {
        super(new Engine(b));
        this.docs = new LockDocs(
                Clients.internal(Objects.requireNonNull(b.client, "client cannot be null")),
                b.lockIndex,
                b.clock,
                b.createLockIndex,
                b.sleeper);
    }

    /**
     * A provider on lock documents; creates the lock index on first use unless told not to.
     *
     * @param fn sets the options on the builder it is given and returns it (its backend is ignored)
     * @return the new provider; close it when done
     * @throws NullPointerException if the client is not set
     * @throws IllegalArgumentException if the index is not set
     * @throws IllegalStateException if the server refuses every request of this client line (an 8.x
     *     server with elasticsearch-java 9.x, say)
     */
    public static DocumentTreeLocks of(Function<TreeLocks.Builder, TreeLocks.Builder> fn) {
        return new DocumentTreeLocks(fn.apply(new TreeLocks.Builder()));
    }

    /**
     * The mapping of the lock index, for creating it yourself (with one shard: documents are tiny).
     *
     * @return the mapping the provider itself creates the lock index with
     */
    public static TypeMapping lockIndexMapping() {
        return LockDocs.mapping();
    }

    @Override
    LockStore store() {
        return store;
    }

    /**
     * The index holding the lock documents.
     *
     * @return the lock index name
     */
    public String lockIndex() {
        return docs.lockIndex;
    }

    @Override
    public Backend backend() {
        return Backend.DOCUMENTS;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Lock documents cannot be bound to a user: anyone who may write the lock index may change them. So a
     * request with {@link LockRequest.Builder#bindToUser} is refused, never served unbound.
     *
     * @throws IllegalArgumentException if the request asks to bind the grant to the user
     */
    @Override
    public AcquireResult<TreeLock> acquire(LockRequest request) {
        return super.acquire(request);
    }

    /** Refuses a request to bind the grant to the user, before anything is sent. */
    @Override
    LockStore store(LockRequest request) {
        if (request.bindToUser()) {
            throw new IllegalArgumentException("cannot bind a lock to the user with lock documents (" + request
                    + "): anyone who may write the lock index [" + docs.lockIndex
                    + "] may change them; bindToUser needs"
                    + " the esrel plugin (PluginTreeLocks), which enforces it on the server");
        }
        return store;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Refreshes the lock index first (so that paths locked for the first time are seen), then reads
     * the lock documents with a search.
     */
    @Override
    public List<LockInfo> list(TreePath prefix) {
        return super.list(prefix);
    }

    /**
     * Locks documents of the namespace's index by id, exclusively, all or nothing: seed 000's document
     * locking, leased. The lock documents are written in one bulk request carrying the owner
     * ({@code create} for ids never locked, a conditional {@code index} for ids whose holder released or
     * expired); if any id is held by someone else, nothing stays locked and the result carries the
     * conflicts (the document id in {@link LockConflict#path()}). Held documents are renewed in the
     * background like tree locks. The provider's owner and lease apply.
     *
     * @param ids the document ids; duplicates are ignored
     * @param maxWait how long to wait for the holders to go; zero fails fast
     * @return the held locks (close them), or the conflicts that remained when the wait ran out
     * @throws IllegalArgumentException if {@code ids} is empty or has a blank id
     * @throws TreeLockException if the cluster cannot be reached or refuses the request, or (as
     *     {@link TreeLocks#acquire(LockRequest)}) the locks were granted too late to be used
     */
    public AcquireResult<DocumentLocks> lockDocuments(Collection<String> ids, Duration maxWait) {
        Objects.requireNonNull(ids, "ids cannot be null");
        Checks.notNegative(maxWait, "maxWait");
        requireNamespaceIndex();
        List<String> unique = new ArrayList<>(new LinkedHashSet<>(ids));
        if (unique.isEmpty()) {
            throw new IllegalArgumentException("ids must not be empty");
        }
        for (String id : unique) {
            if (id == null || id.isBlank()) {
                throw new IllegalArgumentException("document ids must not be blank");
            }
        }
        List<Target> targets = unique.stream()
                .map(id -> new Target(engine.index, LockDocs.KIND_DOC, id, null))
                .toList();
        String what = unique.size() + " document(s) of [" + engine.index + "]";
        return engine.waitLoop(what, maxWait, Duration.ZERO, ignored -> tryLockDocuments(unique, targets));
    }

    private Engine.Step<DocumentLocks> tryLockDocuments(List<String> ids, List<Target> targets) {
        String grant = UUID.randomUUID().toString();
        String owner = engine.owner;
        Duration ttl = engine.ttl;
        long sent = System.nanoTime();
        long expiresAt = docs.now() + ttl.toMillis();
        // One bulk round: every free id gets our holder; a held id gets nothing and names its holders.
        boolean[] wrote = new boolean[1];
        List<List<LockConflict>> outcome;
        try {
            outcome = docs.updateAll(
                    targets,
                    HolderDecisions.takeDocument(grant, owner, expiresAt, docs::now),
                    firstRead -> wrote[0] = firstRead.stream().allMatch(List::isEmpty));
        } catch (RuntimeException e) {
            if (wrote[0]) {
                try {
                    docs.updateAll(targets, removeHolder(grant));
                } catch (RuntimeException again) {
                    e.addSuppressed(again);
                    throw e;
                }
                if (LostAnswers.isLost(e)) {
                    return new Engine.Step<>(
                            null, List.of(), e.getMessage() + "; whatever it had taken was released by its grant");
                }
            }
            throw e;
        }
        List<LockConflict> conflicts = outcome.stream().flatMap(List::stream).toList();
        if (!conflicts.isEmpty()) {
            // Busy on the first read: nothing was written. Busy only after a lost race on some ids:
            // the others were written and are taken back.
            if (wrote[0]) {
                docs.updateAll(targets, removeHolder(grant));
            }
            return new Engine.Step<>(null, conflicts);
        }
        Lease.Ops ops = new DocumentOps(targets, grant);
        LockStore.Grant g = new LockStore.Grant(0, Instant.ofEpochMilli(expiresAt), ops);
        return engine.granted(g, ttl, sent, true, lease -> new DocumentLocks(engine.index, ids, owner, lease));
    }

    @Override
    public String toString() {
        return "DocumentTreeLocks{index=" + engine.index + ", lockIndex=" + docs.lockIndex + ", owner=" + engine.owner
                + ", ttl=" + engine.ttl + '}';
    }

    private LockDocs.Decide<Boolean> removeHolder(String grant) {
        return HolderDecisions.remove(grant, docs::now);
    }

    private LockDocs.Decide<Boolean> renewHolder(String grant, long expiresAt) {
        return HolderDecisions.renew(grant, expiresAt, docs::now);
    }

    /** Tree locks on lock documents. */
    private final class PathStore implements LockStore {

        @Override
        public boolean waitsOnServer() {
            return false;
        }

        @Override
        public Attempt tryAcquire(TreePath path, LockMode mode, String owner, Duration ttl, Duration serverWait) {
            requireNamespaceIndex();
            String grant = UUID.randomUUID().toString();
            long expiresAt = docs.now() + ttl.toMillis();
            List<TreePath> lineage = path.lineage();
            List<Target> taken = new ArrayList<>(lineage.size());
            try {
                return take(path, mode, owner, grant, expiresAt, lineage, taken);
            } catch (RuntimeException e) {
                // Do not leave the ancestors taken so far locked until the lease ends, nor the holder of a write whose
                // answer was lost: each is removed by its grant, wherever it was applied.
                try {
                    rollback(taken, grant);
                } catch (RuntimeException again) {
                    e.addSuppressed(again);
                    throw e;
                }
                if (LostAnswers.isLost(e)) {
                    return Attempt.lost(e.getMessage() + "; whatever it had taken was released by its grant");
                }
                throw e;
            }
        }

        private Attempt take(
                TreePath path,
                LockMode mode,
                String owner,
                String grant,
                long expiresAt,
                List<TreePath> lineage,
                List<Target> taken) {
            long token = 0;
            for (TreePath node : lineage) {
                LockMode want = node.equals(path) ? mode : LockMode.SHARED;
                Target target = target(node);
                taken.add(target); // before the write: if its outcome stays unknown, the rollback removes it too
                Object result = docs.update(
                        target, HolderDecisions.take(grant, owner, want, expiresAt, path.value(), mode, docs::now));
                if (result instanceof List<?> conflicts) {
                    taken.remove(taken.size() - 1); // not written
                    rollback(taken, grant);
                    @SuppressWarnings("unchecked")
                    List<LockConflict> list = (List<LockConflict>) conflicts;
                    return Attempt.busy(list);
                }
                token = (Long) result;
            }
            return Attempt.granted(new Grant(token, Instant.ofEpochMilli(expiresAt), new PathOps(taken, grant)));
        }

        private void rollback(List<Target> taken, String grant) {
            for (int i = taken.size() - 1; i >= 0; i--) {
                docs.update(taken.get(i), removeHolder(grant));
            }
        }

        @Override
        public List<LockInfo> list(TreePath prefix) {
            requireNamespaceIndex();
            docs.ensureIndex();
            try {
                docs.client.indices().refresh(r -> r.index(docs.lockIndex));
            } catch (ElasticsearchException e) {
                throw docs.failure("refresh the lock index", e);
            } catch (IOException e) {
                throw docs.failure("refresh the lock index", e);
            }
            List<Query> filters = new ArrayList<>();
            filters.add(Query.of(q -> q.term(t -> t.field("ns").value(engine.index))));
            filters.add(Query.of(q -> q.term(t -> t.field("kind").value(LockDocs.KIND_PATH))));
            if (!prefix.isRoot()) {
                filters.add(Query.of(q -> q.term(t -> t.field("tree").value(prefix.value()))));
            }
            List<LockInfo> out = new ArrayList<>();
            List<FieldValue> after = null;
            long now = docs.now();
            while (true) {
                List<FieldValue> from = after;
                SearchResponse<JsonData> r;
                try {
                    r = docs.client.search(
                            s -> {
                                s.index(docs.lockIndex)
                                        .size(1000)
                                        .query(q -> q.bool(b -> b.filter(filters)))
                                        .sort(o -> o.field(f -> f.field("key").order(SortOrder.Asc)));
                                if (from != null) {
                                    s.searchAfter(from);
                                }
                                return s;
                            },
                            JsonData.class);
                } catch (ElasticsearchException e) {
                    throw docs.failure("search the lock index", e);
                } catch (IOException e) {
                    throw docs.failure("search the lock index", e);
                }
                String missing = ShardFailures.of(r.shards());
                if (missing != null) {
                    throw new TreeLockException(
                            "cannot search the lock index [" + docs.lockIndex + "]: " + missing,
                            TreeLockException.UNAVAILABLE,
                            null);
                }
                List<Hit<JsonData>> hits = r.hits().hits();
                for (Hit<JsonData> hit : hits) {
                    JsonObject src = docs.source(hit.source());
                    String key = src.getString("key");
                    // Granted here, not an ancestor's shared part of a grant below: as the plugin lists.
                    List<Holder> granted = LockDocs.holders(src).stream()
                            .filter(h -> h.liveAt(now) && key.equals(h.forPath()))
                            .sorted(java.util.Comparator.comparingLong(Holder::token))
                            .toList();
                    // A key past TreePath's limits was written by an esrel before the one path contract (4,096
                    // characters at any depth then): no client now can lock, renew or release it, and its lease ends
                    // it.
                    if (granted.isEmpty() || !TreePath.isValid(key)) {
                        continue;
                    }
                    out.add(new LockInfo(
                            TreePath.of(key),
                            granted.get(0).mode(),
                            granted.stream()
                                    .map(h -> new LockInfo.Holder(
                                            h.owner(), h.token(), Instant.ofEpochMilli(h.expiresAt())))
                                    .toList()));
                }
                if (hits.size() < 1000) {
                    return out;
                }
                after = hits.get(hits.size() - 1).sort();
            }
        }
    }

    private static final String NO_INDEX = "no such index [%s]: tree locks are kept for an existing index (with the"
            + " plugin too, which authorizes them per index); create it first";

    /**
     * A namespace is an existing index, as with the plugin, which authorizes locks per index: acquire and list in
     * a namespace without one fail with 404, and a lock whose namespace index was deleted is lost (its renewal
     * says so, its release returns false), as with the plugin.
     */
    private void requireNamespaceIndex() {
        if (!namespaceIndexExists()) {
            throw new TreeLockException(NO_INDEX.formatted(engine.index), 404, null);
        }
    }

    /** Asked with a count, so the caller needs {@code read} on the namespace index (as the plugin's list does). */
    private boolean namespaceIndexExists() {
        try {
            return Indices.exists(docs.client, engine.index);
        } catch (ElasticsearchException e) {
            throw new TreeLockException(
                    "cannot check the namespace index [" + engine.index + "]: " + e.getMessage(),
                    TreeLockException.providerStatus(e.status()),
                    e);
        } catch (IOException e) {
            throw new TreeLockException("cannot check the namespace index [" + engine.index + "]: " + e, 0, e);
        }
    }

    private Target target(TreePath path) {
        return new Target(engine.index, LockDocs.KIND_PATH, path.value(), path.hierarchyTokens());
    }

    /**
     * Renewal of one grant's holders, whichever documents they are in: none once the namespace index is gone, and
     * one expiry, fixed before the first write, for all of them.
     */
    private abstract class GrantOps implements Lease.Ops {
        final String grant;

        GrantOps(String grant) {
            this.grant = grant;
        }

        /** Sets every holder of the grant to expire at {@code expiresAt}; why the lease is lost, or {@code null}. */
        abstract @Nullable String renewHolders(long expiresAt);

        @Override
        public Lease.Renewal renew(Duration ttl) {
            if (!namespaceIndexExists()) {
                return Lease.Renewal.lost(NO_INDEX.formatted(engine.index));
            }
            // The expiry is fixed before the first write, and the handle's own deadline is counted from
            // before it too: no holder of this grant outlives what the handle believes.
            long expiresAt = docs.now() + ttl.toMillis();
            String lost = renewHolders(expiresAt);
            return lost == null ? Lease.Renewal.ok(Instant.ofEpochMilli(expiresAt)) : Lease.Renewal.lost(lost);
        }
    }

    /** Renew and release of a tree lock: its holders on the lineage, leaf first. */
    private final class PathOps extends GrantOps {
        private final List<Target> leafFirst;

        PathOps(List<Target> rootFirst, String grant) {
            super(grant);
            List<Target> reversed = new ArrayList<>(rootFirst);
            java.util.Collections.reverse(reversed);
            this.leafFirst = List.copyOf(reversed);
        }

        @Override
        @Nullable
        String renewHolders(long expiresAt) {
            for (Target t : leafFirst) {
                if (!docs.update(t, renewHolder(grant, expiresAt))) {
                    return "the lease on " + t.key()
                            + " has ended (expired, or taken over after expiry) before it was renewed";
                }
            }
            return null;
        }

        @Override
        public boolean release() {
            boolean held = namespaceIndexExists();
            for (Target t : leafFirst) {
                held &= docs.update(t, removeHolder(grant));
            }
            return held;
        }
    }

    /** Renew and release of document locks: one multi-get and one bulk request each. */
    private final class DocumentOps extends GrantOps {
        private final List<Target> targets;

        DocumentOps(List<Target> targets, String grant) {
            super(grant);
            this.targets = targets;
        }

        @Override
        @Nullable
        String renewHolders(long expiresAt) {
            List<Boolean> renewed = docs.updateAll(targets, renewHolder(grant, expiresAt));
            for (int i = 0; i < renewed.size(); i++) {
                if (!renewed.get(i)) {
                    return "the lock on document " + targets.get(i).key() + " has ended before it was renewed";
                }
            }
            return null;
        }

        @Override
        public boolean release() {
            boolean exists = namespaceIndexExists();
            return docs.updateAll(targets, removeHolder(grant)).stream().allMatch(b -> b) && exists;
        }
    }
}
