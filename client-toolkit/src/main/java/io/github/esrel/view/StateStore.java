package io.github.esrel.view;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.IndexResponse;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Indices;
import io.github.esrel.retry.Failures;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state index of the views: the clock, the intents and, per view, the floor below which an intent is stale. It
 * must have exactly one shard, because the clock is that shard's sequence number: every write to the shard gets a
 * {@code _seq_no} larger than that of every write acknowledged before it started, across primary failovers (a new
 * primary continues above the highest sequence number any in-sync copy holds).
 *
 * <h2>Why a late copy of an intent never brings it back</h2>
 * The same intent request can reach Elasticsearch more than once: a load balancer or the low-level client sends it
 * again after an I/O error, or a node that was frozen (a long GC pause, SIGSTOP, a VM migration) runs the copy it
 * held after the writer, told of a failure, went on, possibly after the intent was cleared. Such a copy is stopped
 * at one of three levels:
 * <ol>
 *   <li><b>Create-only on a fresh id.</b> An intent is written with {@code op_type=create} under an id of its own
 *       ({@code intent:<view>:<random UUID>}): only a copy of the same request can ever name that id, and a copy that
 *       arrives while the document exists is refused (409). A 409 answered to the writer itself is such a copy of
 *       its own request, applied first (a resend): the intent is recorded.</li>
 *   <li><b>Cleared by an update, not a delete.</b> Clearing rewrites the document as a cleared marker
 *       ({@code "kind": "cleared"}) instead of deleting it, so the id stays taken and a late copy of the intent is
 *       refused as in 1. A delete would not do: Elasticsearch forgets a delete after {@code index.gc_deletes} (60 s by
 *       default), and {@code op_type=create} of a deleted id succeeds at once anyway (an external version's
 *       protection ends with the tombstone too), so a copy delayed past the delete would bring the intent back as
 *       pending, and it would stay after {@link MaterializedView#repair()} when it arrived after the repair read the
 *       intents.</li>
 *   <li><b>The floor, once markers are collected.</b> Markers cannot stay for ever (one per change). Markers of
 *       intents recorded more than the retention ago are deleted ({@link #collect()}: by {@code repair()}, and by a
 *       change's clear at most every half retention). Before deleting them the collection raises the view's floor
 *       ({@code floor:<view>}, written with its value as an external version, so that it only rises and a late copy
 *       of an older floor is refused) to {@code min(now - retention, oldest pending intent's created_at)}. A copy of
 *       an intent that arrives after its marker was collected carries the intent's original {@code created_at},
 *       which is below the floor: it is recognised as stale, never listed as pending, and deleted by the next
 *       repair. No pending intent is ever below the floor: the floor never passes the oldest pending one, and an
 *       intent recorded later carries its writer's present time, above {@code now - retention} as long as the
 *       writers' clocks and the time an intent request takes to be acknowledged stay well within the retention.</li>
 * </ol>
 * The one way left for a late copy to come back as a pending intent: its marker was collected while an older intent
 * stayed pending (a crashed writer's intent no repair has replayed yet, or one whose views cannot be built), which
 * holds the floor back. Such an intent is harmless, as any replay is: a replay rebuilds the views from the current
 * sources with a new clock value, and the next repair clears it.
 */
final class StateStore {

    private static final Logger log = LoggerFactory.getLogger(StateStore.class);

    /** Handles one page of a stream. */
    interface PageHandler<T> {
        void accept(List<T> page) throws IOException;
    }

    private static final String MAPPING = """
        {"settings": {"number_of_shards": 1, "auto_expand_replicas": "0-1"},
         "mappings": {"dynamic": false, "properties": {
           "kind": {"type": "keyword"}, "view": {"type": "keyword"}, "target": {"type": "keyword"},
           "id": {"type": "keyword"}, "created_at": {"type": "long"}}}}""";
    private static final int CLOCK_DOCS = 8;
    static final String PENDING = "intent";
    static final String CLEARED = "cleared";
    /** Attempts at recording an intent whose resent copy found it cleared already (only a repair racing a resend). */
    private static final int RECORD_ATTEMPTS = 3;

    private final ElasticsearchClient client;
    private final String index;
    private final String view;
    private final String owner;
    private final Duration retention;
    private final Clock clock;
    /** When (System.nanoTime) a clear next collects old markers. */
    private final AtomicLong nextCollect;

    private volatile boolean ensured;

    StateStore(ElasticsearchClient client, String index, String view, String owner, Duration retention, Clock clock) {
        this.client = client;
        this.index = index;
        this.view = view;
        this.owner = owner;
        this.retention = retention;
        this.clock = clock;
        this.nextCollect = new AtomicLong(System.nanoTime() + retention.toNanos() / 2);
    }

    String index() {
        return index;
    }

    /** Creates the state index if needed and checks that it has one shard. */
    void ensure() throws IOException {
        if (ensured) {
            return;
        }
        Indices.createIfAbsent(client, index, MAPPING);
        int shards = Indices.primaryShards(client, index);
        if (shards != 1) {
            throw new ViewException(
                    "the view state index [" + index + "] has " + shards + " shards; it must have exactly"
                            + " one, because the views' versions come from its sequence numbers. Delete it (when no write is in"
                            + " flight) or choose another stateIndex",
                    400,
                    null);
        }
        ensured = true;
    }

    /**
     * A new clock value: the {@code _seq_no} of a write to the state index. Larger than every value
     * returned before this call started. A copy of the write applied again (resent, or run late by a node that
     * was frozen) only uses up a sequence number: the clock needs values that rise, not values without gaps.
     */
    long tick() throws IOException {
        ensure();
        String id = "clock:" + view + ":" + ThreadLocalRandom.current().nextInt(CLOCK_DOCS);
        ObjectNode doc =
                JsonNodeFactory.instance.objectNode().put("kind", "clock").put("view", view);
        IndexResponse r = client.index(i -> i.index(index).id(id).document(doc));
        return r.seqNo() == null ? -1 : r.seqNo();
    }

    /**
     * Records an intent durably (the write is acknowledged after the translog is synced), create-only under a fresh
     * id (see the class comment).
     */
    Intent record(Intent.Target target, String targetId, @Nullable String routing) throws IOException {
        ensure();
        for (int attempt = 1; ; attempt++) {
            Intent intent = new Intent(
                    "intent:" + view + ":" + UUID.randomUUID(), target, targetId, routing, clock.instant(), owner);
            ObjectNode doc = document(intent, PENDING);
            try {
                client.create(c -> c.index(index).id(intent.id()).document(doc));
                return intent;
            } catch (ElasticsearchException e) {
                if (e.status() != Failures.CONFLICT) {
                    throw e;
                }
                // Nothing but a copy of this very request can name a fresh UUID: one was applied before this one
                // (the request was sent again after an I/O error). Pending, it is this intent. Cleared, a repair
                // replayed it meanwhile, before the write it covers: record another one, so that the write is covered.
                if (PENDING.equals(kindOf(intent.id()))) {
                    return intent;
                }
                if (attempt >= RECORD_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * Clears an intent by rewriting it as a cleared marker, which keeps its id taken (see the class comment); may
     * collect old markers, at most every half retention per view object.
     */
    void clear(Intent intent) throws IOException {
        ObjectNode marker = document(intent, CLEARED).put("cleared_at", clock.millis());
        client.index(i -> i.index(index).id(intent.id()).document(marker));
        long due = nextCollect.get();
        long now = System.nanoTime();
        if (now - due >= 0 && nextCollect.compareAndSet(due, now + retention.toNanos() / 2)) {
            try {
                collect();
            } catch (IOException | RuntimeException e) {
                // Housekeeping: the markers are collected by the next clear due, or by repair().
                log.warn("collecting the cleared intents of view [{}] in [{}] failed: {}", view, index, e.toString());
            }
        }
    }

    /**
     * Raises the view's floor and deletes the cleared markers of intents recorded more than the retention ago (see the
     * class comment). Raising the floor first: a marker is only deleted once its copies are recognised as stale,
     * unless an older intent still pending holds the floor back.
     */
    void collect() throws IOException {
        ensure();
        long horizon = clock.millis() - retention.toMillis();
        long current = floor();
        long floor = Math.min(horizon, oldestPending(current));
        if (floor > current) {
            ObjectNode doc = JsonNodeFactory.instance
                    .objectNode()
                    .put("kind", "floor")
                    .put("view", view)
                    .put("created_before", floor);
            try {
                client.index(i -> i.index(index)
                        .id(floorId())
                        .version(floor)
                        .versionType(VersionType.External)
                        .document(doc));
            } catch (ElasticsearchException e) {
                if (e.status() != Failures.CONFLICT) { // 409: another process raised it higher meanwhile
                    throw e;
                }
            }
        }
        Query old = Query.of(b ->
                b.bool(x -> x.filter(f -> f.term(t -> t.field("kind").value(CLEARED)))
                        .filter(f -> f.term(t -> t.field("view").value(view)))
                        .filter(ClientApi.range("created_at", false, horizon - 1))));
        // Streamed and deleted page by page rather than with _delete_by_query, which needs the reindex module.
        try (DocStream s =
                DocStream.of(b -> b.client(client).index(index).query(old).pageSize(1000))) {
            for (List<Hit<ObjectNode>> page = s.next(); !page.isEmpty(); page = s.next()) {
                List<BulkOperation> deletes = new ArrayList<>(page.size());
                for (Hit<ObjectNode> h : page) {
                    deletes.add(
                            BulkOperation.of(o -> o.delete(d -> d.index(index).id(h.id()))));
                }
                BulkResponse r = client.bulk(b -> b.operations(deletes));
                for (BulkResponseItem item : r.items()) {
                    if (item.error() != null && item.status() != 404) {
                        throw Failures.ofBulkItem(item.status(), item.error());
                    }
                }
            }
        }
    }

    /** The created_at of the oldest pending intent at or above {@code floor}; {@code Long.MAX_VALUE} when none. */
    private long oldestPending(long floor) throws IOException {
        client.indices().refresh(r -> r.index(index));
        Query q = Query.of(b ->
                b.bool(x -> x.filter(f -> f.term(t -> t.field("kind").value(PENDING)))
                        .filter(f -> f.term(t -> t.field("view").value(view)))
                        .filter(ClientApi.range("created_at", true, floor))));
        SearchResponse<ObjectNode> r = client.search(
                s -> s.index(index)
                        .size(1)
                        .query(q)
                        .sort(o -> o.field(f -> f.field("created_at").order(SortOrder.Asc))),
                ObjectNode.class);
        return r.hits().hits().isEmpty()
                ? Long.MAX_VALUE
                : r.hits().hits().get(0).source().path("created_at").asLong();
    }

    /** The view's floor: intents recorded before it are stale copies (see the class comment); 0 before the first. */
    long floor() throws IOException {
        GetResponse<ObjectNode> g = client.get(r -> r.index(index).id(floorId()), ObjectNode.class);
        return g.found() ? g.source().path("created_before").asLong() : 0;
    }

    private String floorId() {
        return "floor:" + view;
    }

    private @Nullable String kindOf(String id) throws IOException {
        GetResponse<ObjectNode> g = client.get(r -> r.index(index).id(id), ObjectNode.class);
        return g.found() ? g.source().path("kind").asText() : null;
    }

    private ObjectNode document(Intent intent, String kind) {
        ObjectNode doc = JsonNodeFactory.instance
                .objectNode()
                .put("kind", kind)
                .put("view", view)
                .put("target", intent.target().name().toLowerCase(Locale.ROOT))
                .put("id", intent.targetId())
                .put("created_at", intent.createdAt().toEpochMilli())
                .put("owner", intent.owner());
        if (intent.routing() != null) {
            doc.put("routing", intent.routing());
        } else {
            doc.putNull("routing");
        }
        return doc;
    }

    /**
     * Streams the pending intents of this view recorded up to {@code before} (the index is refreshed first). Stale
     * copies (recorded below the floor: see the class comment) are left out, and deleted when {@code dropStale}.
     */
    void intents(Instant before, PageHandler<Intent> pages, boolean dropStale) throws IOException {
        ensure();
        client.indices().refresh(r -> r.index(index));
        long floor = floor();
        Query q = Query.of(b ->
                b.bool(x -> x.filter(f -> f.term(t -> t.field("kind").value(PENDING)))
                        .filter(f -> f.term(t -> t.field("view").value(view)))
                        .filter(ClientApi.range("created_at", false, before.toEpochMilli()))));
        try (DocStream s =
                DocStream.of(b -> b.client(client).index(index).query(q).pageSize(500))) {
            for (List<Hit<ObjectNode>> page = s.next(); !page.isEmpty(); page = s.next()) {
                List<Intent> intents = new ArrayList<>();
                for (Hit<ObjectNode> h : page) {
                    ObjectNode d = h.source();
                    long createdAt = d.path("created_at").asLong();
                    if (createdAt < floor) {
                        if (dropStale) {
                            // A late copy of an intent cleared and collected long ago; deleting it is all there is to
                            // do (a copy of this delete applied again deletes nothing of value either).
                            client.delete(r -> r.index(index).id(h.id()));
                        }
                        continue;
                    }
                    intents.add(new Intent(
                            h.id(),
                            Intent.Target.valueOf(d.path("target").asText().toUpperCase(Locale.ROOT)),
                            d.path("id").asText(),
                            d.path("routing").isTextual() ? d.path("routing").asText() : null,
                            Instant.ofEpochMilli(createdAt),
                            d.path("owner").asText(null)));
                }
                if (!intents.isEmpty()) {
                    pages.accept(intents);
                }
            }
        }
    }
}
