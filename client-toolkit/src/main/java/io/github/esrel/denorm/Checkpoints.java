package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import io.github.esrel.internal.Indices;
import io.github.esrel.internal.JsonTrees;
import io.github.esrel.retry.Failures;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes job checkpoints in the checkpoint index.
 *
 * <h2>Why a checkpoint request applied twice, or late, changes nothing</h2>
 * Each write of a job's checkpoint carries a version above the one before it as an external version
 * ({@code version_type=external}): the claim that resumes a job writes the stored version plus one, and its runner
 * goes on from there. Elasticsearch applies an external version only above the stored one, and checkpoints are never
 * deleted, so:
 * <ul>
 *   <li>a copy of an earlier write (a resend after an I/O error, or a copy a frozen node runs late) is refused once
 *       a later one is stored: a heartbeat of a job that has since completed cannot set it back to {@code RUNNING}
 *       (for {@link io.github.esrel.denorm.Propagator#resumeUnfinished()} to run again), nor put back the owner
 *       whose job another process claimed;</li>
 *   <li>a claim is a compare-and-set: two processes that read the same version both write the next one, and one of
 *       them is refused;</li>
 *   <li>a runner whose job another process claimed (its heartbeat looked stale: a frozen process, say) learns it at
 *       its next checkpoint, which is refused, and stops instead of overwriting the claim.</li>
 * </ul>
 * A write whose answer is lost (or that conflicts, 409) is judged by reading the checkpoint back: written by another
 * owner, the job was taken over; else the write is the runner's own (applied, or refused because its own earlier
 * copy was applied after all) and it goes on above the stored version, so that a copy still on its way is refused.
 */
final class Checkpoints {

    private static final String MAPPING = """
        {"settings": {"number_of_shards": 1, "auto_expand_replicas": "0-1"},
         "mappings": {"dynamic": false, "properties": {
           "relation": {"type": "keyword"}, "parent_id": {"type": "keyword"}, "state": {"type": "keyword"},
           "owner": {"type": "keyword"}, "started_at": {"type": "long"}, "updated_at": {"type": "long"}}}}""";

    /** A checkpoint as stored, with its version (the external version it was written with). */
    record Stored(Checkpoint checkpoint, long version) {}

    /** Attempts at writing a checkpoint that meets copies of the runner's own earlier writes. */
    private static final int WRITE_ATTEMPTS = 10;

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

    /**
     * Writes the checkpoint of a job as the version after {@code last}, the version its writer wrote or read last (0 for
     * a new job); see the class comment.
     *
     * @return the version now stored
     * @throws PropagationException 409 when another owner wrote the checkpoint since {@code last}: the job was taken
     *     over
     * @throws IOException if the write fails and the checkpoint cannot be read back
     */
    long write(Checkpoint c, long last) throws IOException {
        ensureIndex();
        ObjectNode doc = toDoc(c);
        long version = last + 1;
        for (int attempt = 1; ; attempt++) {
            long v = version;
            RuntimeException conflict = null;
            IOException lost = null;
            try {
                client.index(i -> i.index(index)
                        .id(c.jobId())
                        .version(v)
                        .versionType(VersionType.External)
                        .document(doc));
                return v;
            } catch (ElasticsearchException e) {
                if (e.status() != Failures.CONFLICT) {
                    throw e;
                }
                conflict = e;
            } catch (IOException e) {
                lost = e;
            }
            Stored now = get(c.jobId()).orElse(null);
            if (now != null && !Objects.equals(c.owner(), now.checkpoint().owner())) {
                throw new PropagationException(
                        "job [" + c.jobId() + "] was taken over by "
                                + now.checkpoint().owner() + " (its checkpoint is" + " at version " + now.version()
                                + ", this run wrote " + last + " last): this run stops",
                        Failures.CONFLICT,
                        conflict != null ? conflict : lost);
            }
            if (now != null && (now.version() == v || lost != null && now.version() > v)) {
                // This very write was applied: its answer was lost, or a resent copy of it was refused (409).
                return now.version();
            }
            if (attempt >= WRITE_ATTEMPTS) {
                if (lost != null) {
                    throw lost;
                }
                throw conflict;
            }
            // Refused because a copy of this runner's own earlier write was applied late: write above it. Or not
            // applied (lost on the way): write the same version again; a copy still on its way is then refused.
            version = now == null ? v : Math.max(v, now.version() + 1);
        }
    }

    Optional<Stored> get(String jobId) throws IOException {
        ensureIndex();
        GetResponse<ObjectNode> g = client.get(r -> r.index(index).id(jobId), ObjectNode.class);
        if (!g.found()) {
            return Optional.empty();
        }
        return Optional.of(new Stored(fromDoc(jobId, g.source()), g.version() == null ? 0 : g.version()));
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
        List<Checkpoint.Slice> slices = slices(jobId, d.get("slices"));
        return new Checkpoint(
                jobId,
                required(jobId, d, "relation"),
                required(jobId, d, "parent_id"),
                JobState.valueOf(required(jobId, d, "state")),
                required(jobId, d, "owner"),
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
                slices);
    }

    /** A field every checkpoint esrel writes has; a document without it is no checkpoint of esrel's. */
    private static String required(String jobId, JsonNode d, String f) {
        String value = text(d, f);
        if (value == null) {
            throw new IllegalStateException("checkpoint [" + jobId + "] has no [" + f + "]: " + d);
        }
        return value;
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

    private static @Nullable String text(JsonNode d, String f) {
        JsonNode n = d.get(f);
        return n == null || n.isNull() ? null : n.asText();
    }

    private static long num(JsonNode d, String f) {
        JsonNode n = d.get(f);
        return n == null || n.isNull() ? 0 : n.asLong();
    }
}
