package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.commit.TaskScheduler;
import io.github.esrel.plugin.lock.commit.VersionedStore;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.LongSupplier;
import org.elasticsearch.ElasticsearchStatusException;
import org.elasticsearch.ExceptionsHelper;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.DocWriteResponse;
import org.elasticsearch.action.admin.indices.refresh.RefreshRequest;
import org.elasticsearch.action.bulk.BulkItemResponse;
import org.elasticsearch.action.bulk.BulkRequest;
import org.elasticsearch.action.delete.DeleteRequest;
import org.elasticsearch.action.get.GetResponse;
import org.elasticsearch.action.index.IndexRequest;
import org.elasticsearch.action.search.SearchRequest;
import org.elasticsearch.action.search.SearchResponse;
import org.elasticsearch.client.internal.Client;
import org.elasticsearch.common.UUIDs;
import org.elasticsearch.index.VersionType;
import org.elasticsearch.index.engine.VersionConflictEngineException;
import org.elasticsearch.index.query.QueryBuilders;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.search.SearchHit;
import org.elasticsearch.search.builder.SearchSourceBuilder;
import org.elasticsearch.search.sort.SortOrder;
import org.elasticsearch.xcontent.XContentBuilder;
import org.elasticsearch.xcontent.XContentFactory;
import org.jspecify.annotations.Nullable;

/**
 * The lock tables in the lock index {@link TreeLockIndex#NAME}, stored so that a round writes what it changed,
 * not the whole table, and a node decides on a table it keeps in memory between rounds.
 *
 * <h2>Documents</h2>
 * <ul>
 *   <li>The <em>head</em> of each namespace, {@link LockHead} (id: the namespace): replaced with
 *       {@code if_seq_no}/{@code if_primary_term} by every round that changes something, so that, as before, one
 *       compare-and-set orders all decisions of a namespace. It holds that round's changes and those of up to
 *       {@link LockHead#MAX_EARLIER_ROUNDS} rounds before it (at most {@link LockHead#MAX_EARLIER_CHANGES}
 *       grants in all), never the table.</li>
 *   <li>One document per grant (id: {@code <namespace>#<token>}), written with an {@code external_gte} version:
 *       the round that decided its state. A released or expired grant's document is kept, marked
 *       {@code released}, until {@code purge_after}, then deleted if it is still the one this node wrote.</li>
 *   <li>One document per released grant id ({@link GrantIds}; id: {@code <namespace>#released-id#<nonce>}, kind
 *       {@value #RELEASED_ID_KIND}, the {@link ReleasedId} in {@code grant}, its nonce as {@code token} so that the
 *       rebuild's search pages through those due to be deleted by one unique key; it reads the newest {@link
 *       GrantIds#MAX_REMEMBERED} still remembered in one request), written like grant documents and deleted once it is
 *       forgotten ({@code purge_after} is its {@code until}). A plugin that does not know them never reads them.</li>
 * </ul>
 *
 * <h2>A round</h2>
 * Round {@code r + 1} first writes the grant documents of round {@code r}'s changes (those in head {@code r}) and
 * waits for them to be acknowledged, then writes head {@code r + 1} conditional on head {@code r}'s version.
 * So the table of round {@code r} is, at any time, the grant documents plus head {@code r}'s changes: every
 * earlier round's documents were acknowledged, that is on every in-sync copy, before head {@code r} was written.
 *
 * <h2>Reading without reading the table</h2>
 * A node keeps each namespace's table it decided on, indexed ({@link LockIndex}), with the {@code write_id} of
 * the head it matches. A read is a real-time GET of the head (small): the same {@code write_id}, and the table is
 * current; a head that keeps our {@code write_id} among its earlier rounds (other nodes wrote since, or our own
 * write's outcome was unknown), and the changes of the rounds after it bring the table up to date, so that nodes
 * taking turns on a namespace each read one small document, as the node that wrote last does; anything else (a
 * node idle for more rounds than the head keeps, a new node, a lost index), and the table is rebuilt: the lock
 * index is refreshed (every copy, after the GET) and the namespace's grant documents searched, and head's
 * changes applied on top. The compare-and-set of the next write still catches any head this node has not seen.
 *
 * <h2>Late writes</h2>
 * A grant-document write can arrive late (its node paused, its request retried): it carries the version of the
 * round that decided it, older than any later state of the same grant, so {@code external_gte} refuses it while
 * the document exists. A released grant's document is kept until its lease would have ended, plus a minute for
 * clocks, so a late write arriving after the purge recreates a grant whose lease is over, which every decision
 * ignores and the next round removes again. (Only a renewal that shortened a lease leaves an earlier state with a
 * later end; such a late write could bring back a released grant until that end: it delays others, it cannot
 * make two holders.)
 *
 * <h2>Taking over a one-document table</h2>
 * A namespace whose document is a table of the table store ({@link TableDocument}: esrel 0.1, or a node set to
 * {@code esrel.treelock.store: table}) is read as that table; the first round that changes something writes its
 * grants as grant documents, and then the first head in its place.
 *
 * <p>Not thread-safe per namespace; the group commit runs one round at a time per namespace on a node.
 */
public final class GrantStore implements VersionedStore<LockState> {

    /** Grant documents read per search request when a table is rebuilt. */
    static final int PAGE = 10_000;
    /** Added to the maximum ttl before a released grant's document may go: clocks of nodes differ. */
    static final long PURGE_MARGIN_MILLIS = 60_000;
    /** Released grant documents deleted per round at most, so that a round's writes stay bounded. */
    static final int MAX_PURGES_PER_ROUND = 256;
    /** Tables kept in memory; beyond it, those not used for {@link #IDLE_MILLIS} are dropped. */
    static final int MAX_CACHED = 64;

    static final long IDLE_MILLIS = 300_000;

    private static final Comparator<Purge> BY_PURGE_TIME = Comparator.comparingLong(Purge::purgeAfter);

    private final Client client;
    private final TaskScheduler scheduler;
    private final LongSupplier clock;
    private final Map<String, Table> tables = new HashMap<>();

    /**
     * Creates the store of a node, which keeps the tables it decides on in memory.
     *
     * @param client       the node client
     * @param scheduler    where responses are handed over, so that parsing and deciding never run on a network thread
     * @param clock        epoch milliseconds, stored as {@code updated_at} and used for purge times
     */
    public GrantStore(Client client, TaskScheduler scheduler, LongSupplier clock) {
        this.client = client;
        this.scheduler = scheduler;
        this.clock = clock;
    }

    /** A released grant's document, to be deleted after {@code purgeAfter} if still at this version. */
    record Purge(String id, long purgeAfter, long seqNo, long primaryTerm) {}

    /** What this node knows of one namespace: its table as of the head {@link #writeId}. */
    private static final class Table {
        final LockIndex index;
        /** The head this table is current for; null if there is none (or a one-document table, not yet taken over). */
        @Nullable
        String writeId;

        boolean exists;
        long round;
        long seqNo;
        long primaryTerm;
        /** The changes of {@link #round}, in its head; null if none. */
        @Nullable
        RoundChanges headChanges;
        /** The earlier rounds the head keeps ({@link LockHead#earlier}). */
        List<LockHead.Step> earlier = List.of();
        /** Whether the grant documents of {@link #headChanges} were acknowledged. */
        boolean headChangesStored;
        /** The latest lease end of the grants {@link #headChanges} removed, as this node knew them; 0 if none. */
        long headRemovedExpiry;
        /** Tokens of expired grants this node dropped from the index; the next write removes them. */
        final Set<Long> pruned = new LinkedHashSet<>();

        final PriorityQueue<Purge> purges = new PriorityQueue<>(BY_PURGE_TIME);
        long lastUsed;

        Table(LockIndex index) {
            this.index = index;
        }

        /** Applies {@code steps}, the rounds from this table's head to {@code head}, the last one. */
        void catchUp(LockHead head, List<LockHead.Step> steps, long seqNo, long primaryTerm) {
            long removedExpiry = 0;
            for (LockHead.Step step : steps) {
                removedExpiry = latestExpiry(step.changes().removed());
                index.apply(step.changes());
                for (Grant g : step.changes().put()) {
                    pruned.remove(g.token());
                }
                step.changes().removed().forEach(pruned::remove);
            }
            at(head, seqNo, primaryTerm, removedExpiry);
        }

        /** The latest lease end among the grants of {@code tokens} this index has; 0 if none. */
        long latestExpiry(Iterable<Long> tokens) {
            long latest = 0;
            for (long token : tokens) {
                Grant g = index.byToken(token);
                if (g != null) {
                    latest = Math.max(latest, g.expiresAtMillis());
                }
            }
            return latest;
        }

        void at(LockHead head, long seqNo, long primaryTerm, long removedExpiry) {
            headRemovedExpiry = removedExpiry;
            writeId = head.writeId();
            round = head.round();
            headChanges = head.changes();
            earlier = head.earlier();
            headChangesStored = false;
            exists = true;
            this.seqNo = seqNo;
            this.primaryTerm = primaryTerm;
        }
    }

    /** Thrown when a round's table was dropped from memory between its read and its write: read again. */
    static final class TableDropped extends RuntimeException {
        TableDropped(String namespace) {
            super("the lock table of [" + namespace + "] was dropped from memory during the round");
        }
    }

    @Override
    public void read(String namespace, ActionListener<Versioned<LockState>> listener) {
        StoreReads.getRealtime(client, scheduler, namespace, head -> onHead(namespace, head, listener), listener);
    }

    /** The head as read, or null before the lock index exists. */
    private void onHead(
            String namespace, @Nullable GetResponse response, ActionListener<Versioned<LockState>> listener) {
        if (response == null || response.isExists() == false) {
            deliver(namespace, fresh(namespace), listener);
            return;
        }
        Map<String, Object> source = response.getSourceAsMap();
        if (LockHead.isHead(source) == false) {
            // A table of the one-document store: its grants become documents before the first head replaces it.
            TableDocument table = TableDocument.fromSource(source);
            Table t = new Table(table.index());
            t.exists = true;
            t.round = 1;
            t.headChanges = new RoundChanges(table.lastToken(), table.grants(), List.of(), table.released());
            t.seqNo = response.getSeqNo();
            t.primaryTerm = response.getPrimaryTerm();
            deliver(namespace, remember(namespace, t), listener);
            return;
        }
        LockHead head = LockHead.fromSource(source);
        Table t = cached(namespace);
        List<LockHead.Step> steps = t == null || t.writeId == null ? null : head.stepsAfter(t.writeId);
        if (t != null && head.writeId().equals(t.writeId)) {
            t.seqNo = response.getSeqNo();
            t.primaryTerm = response.getPrimaryTerm();
            deliver(namespace, t, listener);
        } else if (t != null && steps != null) { // steps only with a table
            t.catchUp(head, steps, response.getSeqNo(), response.getPrimaryTerm());
            deliver(namespace, t, listener);
        } else {
            rebuild(namespace, head, response.getSeqNo(), response.getPrimaryTerm(), listener);
        }
    }

    /** A namespace without a head: no locks (never locked, or the lock index was lost). */
    private Table fresh(String namespace) {
        return remember(namespace, new Table(new LockIndex(0, List.of())));
    }

    private void deliver(String namespace, Table t, ActionListener<Versioned<LockState>> listener) {
        for (Grant g : t.index.pruneExpired(clock.getAsLong())) {
            t.pruned.add(g.token());
        }
        t.lastUsed = clock.getAsLong();
        listener.onResponse(new Versioned<>(LockState.of(t.index), t.exists, t.seqNo, t.primaryTerm));
    }

    /**
     * Rebuilds the table of {@code head}: refreshes every active copy of the lock index (so that every grant document
     * acknowledged before the head was written is searchable on any copy), reads the namespace's grant
     * documents, and applies the head's changes, which may not be in them yet.
     */
    private void rebuild(
            String namespace,
            LockHead head,
            long seqNo,
            long primaryTerm,
            ActionListener<Versioned<LockState>> listener) {
        client.admin().indices().refresh(new RefreshRequest(TreeLockIndex.NAME), listener.delegateFailure((l, r) -> {
            // Every copy that can serve the search must be refreshed, so a copy that failed to refresh fails the
            // rebuild. A copy that is not assigned (a replica whose node left) counts in the total but serves no
            // search, and one that is still recovering refreshes when it starts (post-recovery) before it serves one:
            // waiting for them would stall every rebuild until the index is green again, that is, a restarted node
            // and any node that needs its table rebuilt while a replica recovers could not lock for seconds.
            if (r.getFailedShards() > 0 || r.getSuccessfulShards() == 0) {
                l.onFailure(new ElasticsearchStatusException(
                        "the lock index could not be refreshed ({} of {} copies, {} failed); retrying",
                        RestStatus.SERVICE_UNAVAILABLE,
                        r.getSuccessfulShards(),
                        r.getTotalShards(),
                        r.getFailedShards()));
                return;
            }
            long now = clock.getAsLong();
            searchGrants(
                    namespace,
                    now,
                    null,
                    new ArrayList<>(),
                    new ArrayList<>(),
                    l.delegateFailure((l1, found) -> searchReleasedIds(namespace, now, l1.delegateFailure((l2, ids) -> {
                        scheduler.execute(() -> {
                            Table t;
                            try {
                                t = new Table(new LockIndex(0, found.grants(), ids));
                                long removedExpiry =
                                        t.latestExpiry(head.changes().removed());
                                t.index.apply(head.changes());
                                t.at(head, seqNo, primaryTerm, removedExpiry);
                                t.purges.addAll(found.purges());
                            } catch (RuntimeException e) {
                                l2.onFailure(e);
                                return;
                            }
                            deliver(namespace, remember(namespace, t), l2);
                        });
                    }))));
        }));
    }

    private record Found(List<Grant> grants, List<Purge> purges) {}

    /**
     * Searches the lock index; a search that missed a shard fails (503, retried) rather than answering, since what
     * part of the lock documents say is not what the namespace holds.
     */
    private void searchEveryShard(SearchSourceBuilder source, ActionListener<SearchResponse> listener) {
        client.search(new SearchRequest(TreeLockIndex.NAME).source(source), listener.delegateFailure((l, response) -> {
            if (response.getFailedShards() > 0 || response.getSuccessfulShards() < response.getTotalShards()) {
                l.onFailure(new ElasticsearchStatusException(
                        "the lock index could not be searched on every shard; retrying",
                        RestStatus.SERVICE_UNAVAILABLE));
                return;
            }
            l.onResponse(response);
        }));
    }

    /**
     * Reads the namespace's grant documents: the grants, and the released ones due to be purged (those not yet
     * due are left out, so that a table is rebuilt from what it holds, plus at most what releases left for later),
     * released grant ids' documents included.
     */
    private void searchGrants(
            String namespace,
            long now,
            Object @Nullable [] after,
            List<Grant> grants,
            List<Purge> purges,
            ActionListener<Found> listener) {
        SearchSourceBuilder source = new SearchSourceBuilder()
                .query(QueryBuilders.boolQuery()
                        .filter(QueryBuilders.termQuery("namespace", namespace))
                        .filter(QueryBuilders.boolQuery()
                                .should(QueryBuilders.boolQuery()
                                        .filter(QueryBuilders.termQuery("kind", GRANT_KIND))
                                        .filter(QueryBuilders.boolQuery()
                                                .should(QueryBuilders.termQuery("released", false))
                                                .should(QueryBuilders.rangeQuery("purge_after")
                                                        .lt(now))))
                                .should(QueryBuilders.boolQuery()
                                        .filter(QueryBuilders.termQuery("kind", RELEASED_ID_KIND))
                                        .filter(QueryBuilders.rangeQuery("purge_after")
                                                .lt(now)))))
                .sort("token", SortOrder.ASC)
                .size(PAGE)
                .seqNoAndPrimaryTerm(true)
                .trackTotalHits(false);
        if (after != null) {
            source.searchAfter(after);
        }
        searchEveryShard(source, listener.delegateFailure((l, response) -> {
            SearchHit[] hits = response.getHits().getHits();
            try {
                for (SearchHit hit : hits) {
                    Map<String, Object> doc = hit.getSourceAsMap();
                    if (Boolean.TRUE.equals(doc.get("released")) || RELEASED_ID_KIND.equals(doc.get("kind"))) {
                        purges.add(new Purge(
                                hit.getId(),
                                ((Number) Objects.requireNonNull(doc.get("purge_after"), "purge_after")).longValue(),
                                hit.getSeqNo(),
                                hit.getPrimaryTerm()));
                    } else {
                        grants.add(GrantJson.read(doc.get("grant")));
                    }
                }
            } catch (RuntimeException e) {
                l.onFailure(new IllegalStateException("a lock grant document is corrupt: " + e.getMessage(), e));
                return;
            }
            if (hits.length == PAGE) {
                searchGrants(namespace, now, hits[hits.length - 1].getSortValues(), grants, purges, l);
            } else {
                l.onResponse(new Found(grants, purges));
            }
        }));
    }

    /**
     * Reads the namespace's released grant ids still remembered: the newest {@link GrantIds#MAX_REMEMBERED}, as many
     * as a table keeps, in one request however many releases the last minutes had; oldest first, as released.
     */
    private void searchReleasedIds(String namespace, long now, ActionListener<List<ReleasedId>> listener) {
        SearchSourceBuilder source = new SearchSourceBuilder()
                .query(QueryBuilders.boolQuery()
                        .filter(QueryBuilders.termQuery("namespace", namespace))
                        .filter(QueryBuilders.termQuery("kind", RELEASED_ID_KIND))
                        .filter(QueryBuilders.rangeQuery("purge_after").gt(now)))
                .sort("purge_after", SortOrder.DESC)
                .size(GrantIds.MAX_REMEMBERED)
                .trackTotalHits(false);
        searchEveryShard(source, listener.delegateFailure((l, response) -> {
            List<ReleasedId> ids = new ArrayList<>();
            try {
                for (SearchHit hit : response.getHits().getHits()) {
                    ids.add(ReleasedId.fromSource(
                            Objects.requireNonNull(hit.getSourceAsMap().get("grant"), "grant")));
                }
            } catch (RuntimeException e) {
                l.onFailure(new IllegalStateException("a released grant id document is corrupt: " + e.getMessage(), e));
                return;
            }
            Collections.reverse(ids);
            l.onResponse(ids);
        }));
    }

    @Override
    public void write(String namespace, Versioned<LockState> read, LockState next, ActionListener<Void> listener) {
        Table t = cached(namespace);
        if (t == null || next.isViewOf(t.index) == false) {
            listener.onFailure(new TableDropped(namespace));
            return;
        }
        long now = clock.getAsLong();
        RoundChanges decided = next.changes();
        Set<Long> removed = new LinkedHashSet<>(decided.removed());
        removed.addAll(t.pruned);
        LockHead head = new LockHead(
                FencingTokens.next(t.round, now),
                UUIDs.randomBase64UUID(),
                // Nothing to keep after a one-document table being taken over: no node has a table at a head of it.
                t.writeId == null
                        ? List.of()
                        : LockHead.earlierAfter(
                                t.earlier,
                                // Read with the head's write id.
                                new LockHead.Step(t.writeId, Objects.requireNonNull(t.headChanges))),
                new RoundChanges(decided.lastToken(), decided.put(), List.copyOf(removed), decided.released()));
        storeGrants(namespace, t, now, listener.delegateFailure((l, stored) -> writeHead(namespace, t, read, head, l)));
    }

    /**
     * Writes the grant documents of the table's head round, unless already acknowledged, and deletes released
     * ones whose time has come; answers once the grant documents are acknowledged.
     */
    private void storeGrants(String namespace, Table t, long now, ActionListener<Void> listener) {
        BulkRequest bulk = new BulkRequest().timeout(TreeLockIndex.WRITE_TIMEOUT);
        // Items [0, puts) write grants, [puts, releases) released grants, [releases, writes) released grant ids,
        // [writes, ...) purge.
        int puts = 0;
        int grantReleases = 0;
        int grantWrites = 0;
        long purgeAfter = Math.max(now, t.headRemovedExpiry) + PURGE_MARGIN_MILLIS;
        List<ReleasedId> releasedIds = new ArrayList<>();
        try {
            if (t.headChanges != null && t.headChangesStored == false) {
                for (Grant g : t.headChanges.put()) {
                    bulk.add(grantWrite(namespace, g.token(), t.round, grantDoc(namespace, g)));
                }
                puts = bulk.numberOfActions();
                for (long token : t.headChanges.removed()) {
                    bulk.add(grantWrite(namespace, token, t.round, releasedDoc(namespace, token, purgeAfter)));
                }
                grantReleases = bulk.numberOfActions();
                for (ReleasedId r : t.headChanges.released()) {
                    bulk.add(new IndexRequest(TreeLockIndex.NAME)
                            .id(releasedIdDocId(namespace, r.nonce()))
                            .source(releasedIdDoc(namespace, r))
                            .versionType(VersionType.EXTERNAL_GTE)
                            .version(t.round));
                    releasedIds.add(r);
                }
                grantWrites = bulk.numberOfActions();
            }
        } catch (IOException e) {
            listener.onFailure(e);
            return;
        }
        List<Purge> purging = new ArrayList<>();
        while (purging.size() < MAX_PURGES_PER_ROUND
                && t.purges.isEmpty() == false
                && t.purges.peek().purgeAfter() < now) {
            Purge p = t.purges.poll();
            purging.add(p);
            bulk.add(new DeleteRequest(TreeLockIndex.NAME, p.id())
                    .setIfSeqNo(p.seqNo())
                    .setIfPrimaryTerm(p.primaryTerm()));
        }
        if (bulk.numberOfActions() == 0) {
            t.headChangesStored = true;
            listener.onResponse(null);
            return;
        }
        int releasesFrom = puts;
        int releasedIdsFrom = grantReleases;
        int writes = grantWrites;
        ActionListener<Void> onFailureRequeue = ActionListener.wrap(listener::onResponse, e -> {
            t.purges.addAll(purging); // nothing tells whether they went: deleting again is harmless
            listener.onFailure(e);
        });
        client.bulk(
                bulk,
                onFailureRequeue.delegateFailure((l, response) -> scheduler.execute(() -> {
                    Exception failed = null;
                    BulkItemResponse[] items = response.getItems();
                    for (int i = 0; i < items.length; i++) {
                        BulkItemResponse item = items[i];
                        if (i >= writes) {
                            Purge p = purging.get(i - writes);
                            if (item.isFailed() && isConflictOrMissing(item) == false) {
                                t.purges.add(p); // the lock index was unavailable: try again next round
                            }
                        } else if (item.isFailed()) {
                            // A version conflict means a later round already wrote this grant: its state is newer.
                            if (ExceptionsHelper.unwrapCause(item.getFailure().getCause())
                                            instanceof VersionConflictEngineException
                                    == false) {
                                failed = item.getFailure().getCause();
                            }
                        } else if (i >= releasedIdsFrom) {
                            DocWriteResponse r = item.getResponse();
                            long forgetAt = releasedIds.get(i - releasedIdsFrom).untilMillis();
                            t.purges.add(new Purge(item.getId(), forgetAt, r.getSeqNo(), r.getPrimaryTerm()));
                        } else if (i >= releasesFrom) {
                            DocWriteResponse r = item.getResponse();
                            t.purges.add(new Purge(item.getId(), purgeAfter, r.getSeqNo(), r.getPrimaryTerm()));
                        }
                    }
                    if (failed != null) {
                        l.onFailure(failed);
                    } else {
                        t.headChangesStored = true;
                        l.onResponse(null);
                    }
                })));
    }

    private void writeHead(
            String namespace, Table t, Versioned<LockState> read, LockHead head, ActionListener<Void> listener) {
        IndexRequest write;
        try {
            write = TreeLockIndex.replacing(
                    namespace, head.toXContent(XContentFactory.jsonBuilder(), namespace, clock.getAsLong()), read);
        } catch (IOException e) {
            listener.onFailure(e);
            return;
        }
        client.index(
                write,
                listener.delegateFailure((l, response) -> scheduler.execute(() -> {
                    long removedExpiry = t.latestExpiry(head.changes().removed());
                    t.index.apply(head.changes());
                    t.pruned.clear();
                    t.at(head, response.getSeqNo(), response.getPrimaryTerm(), removedExpiry);
                    l.onResponse(null);
                })));
    }

    static final String GRANT_KIND = "grant";

    /** The kind of the documents of released grant ids. */
    static final String RELEASED_ID_KIND = "released_id";

    static String releasedIdDocId(String namespace, long nonce) {
        return namespace + "#released-id#" + nonce;
    }

    static XContentBuilder releasedIdDoc(String namespace, ReleasedId r) throws IOException {
        XContentBuilder b = XContentFactory.jsonBuilder().startObject();
        b.field("kind", RELEASED_ID_KIND)
                .field("namespace", namespace)
                .field("token", r.nonce())
                .field("purge_after", r.untilMillis());
        b.field("grant");
        r.toXContent(b);
        return b.endObject();
    }

    static String grantId(String namespace, long token) {
        return namespace + "#" + token;
    }

    private static IndexRequest grantWrite(String namespace, long token, long round, XContentBuilder doc) {
        return new IndexRequest(TreeLockIndex.NAME)
                .id(grantId(namespace, token))
                .source(doc)
                .versionType(VersionType.EXTERNAL_GTE)
                .version(round);
    }

    static XContentBuilder grantDoc(String namespace, Grant g) throws IOException {
        XContentBuilder b = XContentFactory.jsonBuilder().startObject();
        b.field("kind", GRANT_KIND)
                .field("namespace", namespace)
                .field("token", g.token())
                .field("released", false);
        b.field("grant");
        GrantJson.write(b, g);
        return b.endObject();
    }

    static XContentBuilder releasedDoc(String namespace, long token, long purgeAfter) throws IOException {
        return XContentFactory.jsonBuilder()
                .startObject()
                .field("kind", GRANT_KIND)
                .field("namespace", namespace)
                .field("token", token)
                .field("released", true)
                .field("purge_after", purgeAfter)
                .endObject();
    }

    private static boolean isConflictOrMissing(BulkItemResponse item) {
        return ExceptionsHelper.unwrapCause(item.getFailure().getCause()) instanceof VersionConflictEngineException
                || item.getFailure().getStatus() == RestStatus.NOT_FOUND;
    }

    @Nullable
    private synchronized Table cached(String namespace) {
        return tables.get(namespace);
    }

    private synchronized Table remember(String namespace, Table t) {
        t.lastUsed = clock.getAsLong();
        if (tables.size() >= MAX_CACHED) {
            long idleSince = t.lastUsed - IDLE_MILLIS;
            tables.values().removeIf(other -> other.lastUsed < idleSince);
        }
        tables.put(namespace, t);
        return t;
    }

    @Override
    public Failure classify(Exception failure) {
        if (failure instanceof TableDropped) {
            return Failure.CONFLICT;
        }
        return LockIndexFailures.classify(failure);
    }

    @Override
    public Exception gaveUp(String namespace, Retries retries) {
        return LockIndexFailures.gaveUp(namespace, retries);
    }
}
