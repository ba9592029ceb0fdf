package io.github.esrel.view;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.IndexResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Indices;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The state index of the views: the clock and the intents. It must have exactly one shard, because
 * the clock is that shard's sequence number: every write to the shard gets a {@code _seq_no} larger
 * than that of every write acknowledged before it started, across primary failovers (a new primary
 * continues above the highest sequence number any in-sync copy holds).
 */
final class StateStore {

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

    private final ElasticsearchClient client;
    private final String index;
    private final String view;
    private final String owner;
    private volatile boolean ensured;

    StateStore(ElasticsearchClient client, String index, String view, String owner) {
        this.client = client;
        this.index = index;
        this.view = view;
        this.owner = owner;
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
     * returned before this call started.
     */
    long tick() throws IOException {
        ensure();
        String id = "clock:" + view + ":" + ThreadLocalRandom.current().nextInt(CLOCK_DOCS);
        ObjectNode doc =
                JsonNodeFactory.instance.objectNode().put("kind", "clock").put("view", view);
        IndexResponse r = client.index(i -> i.index(index).id(id).document(doc));
        return r.seqNo() == null ? -1 : r.seqNo();
    }

    /** Records an intent durably (the write is acknowledged after the translog is synced). */
    Intent record(Intent.Target target, String targetId, String routing) throws IOException {
        ensure();
        Intent intent =
                new Intent("intent:" + view + ":" + UUID.randomUUID(), target, targetId, routing, Instant.now(), owner);
        ObjectNode doc = JsonNodeFactory.instance
                .objectNode()
                .put("kind", "intent")
                .put("view", view)
                .put("target", target.name().toLowerCase(java.util.Locale.ROOT))
                .put("id", targetId)
                .put("created_at", intent.createdAt().toEpochMilli())
                .put("owner", owner);
        if (routing != null) {
            doc.put("routing", routing);
        } else {
            doc.putNull("routing");
        }
        client.index(i -> i.index(index).id(intent.id()).document(doc));
        return intent;
    }

    void clear(Intent intent) throws IOException {
        client.delete(d -> d.index(index).id(intent.id()));
    }

    /** Streams the intents of this view recorded before {@code before} (the index is refreshed first). */
    void intents(Instant before, PageHandler<Intent> pages) throws IOException {
        ensure();
        client.indices().refresh(r -> r.index(index));
        Query q = Query.of(b ->
                b.bool(x -> x.filter(f -> f.term(t -> t.field("kind").value("intent")))
                        .filter(f -> f.term(t -> t.field("view").value(view)))
                        .filter(ClientApi.range("created_at", false, before.toEpochMilli()))));
        try (DocStream s =
                DocStream.of(b -> b.client(client).index(index).query(q).pageSize(500))) {
            for (List<Hit<ObjectNode>> page = s.next(); !page.isEmpty(); page = s.next()) {
                List<Intent> intents = new ArrayList<>();
                for (Hit<ObjectNode> h : page) {
                    ObjectNode d = h.source();
                    intents.add(new Intent(
                            h.id(),
                            Intent.Target.valueOf(d.path("target").asText().toUpperCase(java.util.Locale.ROOT)),
                            d.path("id").asText(),
                            d.path("routing").isTextual() ? d.path("routing").asText() : null,
                            Instant.ofEpochMilli(d.path("created_at").asLong()),
                            d.path("owner").asText(null)));
                }
                pages.accept(intents);
            }
        }
    }
}
