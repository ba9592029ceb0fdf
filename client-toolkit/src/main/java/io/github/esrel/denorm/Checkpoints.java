package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import io.github.esrel.internal.Indices;
import io.github.esrel.internal.JsonTrees;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads and writes job checkpoints in the checkpoint index. */
final class Checkpoints {

    private static final String MAPPING = """
        {"settings": {"number_of_shards": 1, "auto_expand_replicas": "0-1"},
         "mappings": {"dynamic": false, "properties": {
           "relation": {"type": "keyword"}, "parent_id": {"type": "keyword"}, "state": {"type": "keyword"},
           "owner": {"type": "keyword"}, "started_at": {"type": "long"}, "updated_at": {"type": "long"}}}}""";

    /** A checkpoint as stored, with what a conditional write needs. */
    record Stored(Checkpoint checkpoint, long seqNo, long primaryTerm) {}

    private final ElasticsearchClient client;
    private final String index;
    private volatile boolean ensured;

    Checkpoints(ElasticsearchClient client, String index) {
        this.client = client;
        this.index = index;
    }

    String index() {
        return index;
    }

    void ensureIndex() throws IOException {
        if (ensured) {
            return;
        }
        Indices.createIfAbsent(client, index, MAPPING);
        ensured = true;
    }

    /** Writes the checkpoint; with {@code seqNo >= 0} only if it is unchanged since read (a claim). */
    void save(Checkpoint c, long ifSeqNo, long ifPrimaryTerm) throws IOException {
        ensureIndex();
        ObjectNode doc = toDoc(c);
        client.index(i -> {
            i.index(index).id(c.jobId()).document(doc);
            if (ifSeqNo >= 0) {
                i.ifSeqNo(ifSeqNo).ifPrimaryTerm(ifPrimaryTerm);
            }
            return i;
        });
    }

    Optional<Stored> get(String jobId) throws IOException {
        ensureIndex();
        GetResponse<ObjectNode> g = client.get(r -> r.index(index).id(jobId), ObjectNode.class);
        if (!g.found()) {
            return Optional.empty();
        }
        return Optional.of(new Stored(fromDoc(jobId, g.source()), g.seqNo(), g.primaryTerm()));
    }

    /** Checkpoints of the relation in the given states (the index is refreshed first). */
    List<Checkpoint> find(String relation, List<JobState> states) throws IOException {
        ensureIndex();
        client.indices().refresh(r -> r.index(index));
        List<Checkpoint> found = new ArrayList<>();
        Query q = Query.of(b ->
                b.bool(x -> x.filter(f -> f.term(t -> t.field("relation").value(relation)))
                        .filter(f -> f.terms(t -> t.field("state")
                                .terms(v -> v.value(states.stream()
                                        .map(s -> co.elastic.clients.elasticsearch._types.FieldValue.of(s.name()))
                                        .toList()))))));
        try (DocStream s = DocStream.of(
                b -> b.client(client).index(index).query(q).pageSize(1000).mode(DocStream.Mode.AUTO))) {
            for (List<Hit<ObjectNode>> page = s.next(); !page.isEmpty(); page = s.next()) {
                for (Hit<ObjectNode> h : page) {
                    found.add(fromDoc(h.id(), h.source()));
                }
            }
        }
        return found;
    }

    static ObjectNode toDoc(Checkpoint c) {
        ObjectNode d = JsonTrees.object();
        d.put("relation", c.relation());
        d.put("parent_id", c.parentId());
        d.put("state", c.state().name());
        d.put("owner", c.owner());
        d.put("parent_seq_no", c.parentSeqNo());
        JobCounts n = c.counts();
        d.put("total", n.total());
        d.put("done", n.done());
        d.put("written", n.written());
        d.put("up_to_date", n.upToDate());
        d.put("moved", n.moved());
        d.put("conflicts", n.conflicts());
        d.put("rejected", n.rejected());
        d.put("failed", n.failed());
        d.put("passes", n.passes());
        d.put("started_at", c.startedAt().toEpochMilli());
        d.put("updated_at", c.updatedAt().toEpochMilli());
        if (c.error() != null) {
            d.put("error", c.error());
        } else {
            d.putNull("error");
        }
        ArrayNode slices = d.putArray("slices");
        for (Checkpoint.Slice s : c.slices()) {
            slices.addObject().put("id", s.id()).put("read", s.read()).put("finished", s.finished());
        }
        return d;
    }

    static Checkpoint fromDoc(String jobId, JsonNode d) {
        JsonNode error = d.get("error");
        return new Checkpoint(
                jobId,
                text(d, "relation"),
                text(d, "parent_id"),
                JobState.valueOf(text(d, "state")),
                text(d, "owner"),
                num(d, "parent_seq_no"),
                new JobCounts(
                        num(d, "total"),
                        num(d, "done"),
                        num(d, "written"),
                        num(d, "up_to_date"),
                        num(d, "moved"),
                        num(d, "conflicts"),
                        num(d, "rejected"),
                        num(d, "failed"),
                        (int) num(d, "passes")),
                Instant.ofEpochMilli(num(d, "started_at")),
                Instant.ofEpochMilli(num(d, "updated_at")),
                error == null || error.isNull() ? null : error.asText(),
                slices(jobId, d.get("slices")));
    }

    /** The slices of a checkpoint; none in one written before slices existed. */
    private static List<Checkpoint.Slice> slices(String jobId, JsonNode slices) {
        if (slices == null || slices.isNull()) {
            return List.of();
        }
        if (!slices.isArray()) {
            throw new IllegalStateException(
                    "checkpoint [" + jobId + "] has a [slices] field that is not an array: " + slices);
        }
        List<Checkpoint.Slice> out = new ArrayList<>();
        for (JsonNode s : slices) {
            if (!s.path("id").canConvertToInt() || !s.path("read").canConvertToLong()) {
                throw new IllegalStateException("checkpoint [" + jobId + "] has a malformed slice: " + s);
            }
            out.add(new Checkpoint.Slice(
                    s.get("id").asInt(),
                    s.get("read").asLong(),
                    s.path("finished").asBoolean()));
        }
        return out;
    }

    private static String text(JsonNode d, String f) {
        JsonNode n = d.get(f);
        return n == null || n.isNull() ? null : n.asText();
    }

    private static long num(JsonNode d, String f) {
        JsonNode n = d.get(f);
        return n == null || n.isNull() ? 0 : n.asLong();
    }
}
