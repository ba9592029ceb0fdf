package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.GetResponse;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import io.github.esrel.doc.DocStreamException;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Indices;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.Attempts;
import java.io.IOException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The reads of one job: its parent, the refresh of the child index, the stream of children still to stamp. */
final class JobReads {

    private static final Logger LOG = LoggerFactory.getLogger(JobReads.class);

    private final PropagationSettings p;
    private final Relation rel;
    private final String parentId;

    JobReads(PropagationSettings p, String parentId) {
        this.p = p;
        this.rel = p.relation();
        this.parentId = parentId;
    }

    /** The parent now (a realtime get), or {@code null} if it does not exist. */
    ChildRewrite.@Nullable Parent parent() throws IOException {
        Attempts attempts = p.readPolicy().attempts();
        while (true) {
            try {
                GetResponse<ObjectNode> g =
                        p.client().get(r -> r.index(rel.parentIndex()).id(parentId), ObjectNode.class);
                if (!g.found()) {
                    return null;
                }
                return new ChildRewrite.Parent(parentId, g.source(), g.seqNo() == null ? -1 : g.seqNo());
            } catch (ElasticsearchException e) {
                if (!attempts.retryAfter(e)) {
                    throw new PropagationException(
                            "reading parent [" + rel.parentIndex() + "][" + parentId + "] failed: " + Reasons.of(e),
                            e.status(),
                            e);
                }
            }
        }
    }

    /** Makes children written so far visible to the next pass's search. */
    void refreshChildren() throws IOException {
        Attempts attempts = p.readPolicy().attempts();
        while (true) {
            try {
                p.client().indices().refresh(r -> r.index(rel.childIndex()));
                return;
            } catch (ElasticsearchException e) {
                if (!attempts.retryAfter(e)) {
                    throw new PropagationException(
                            "refreshing [" + rel.childIndex() + "] failed: " + Reasons.of(e), e.status(), e);
                }
            }
        }
    }

    /**
     * The primary shards of the child index, through a count (the {@code read} privilege is enough); 0 when they
     * cannot be counted, which makes the job read with one stream, as it would anyway on a missing index.
     */
    int primaryShards() {
        try {
            return Indices.primaryShards(p.client(), rel.childIndex());
        } catch (IOException | RuntimeException e) {
            LOG.debug(
                    "cannot count the shards of [{}] ({}); reading it with one stream", rel.childIndex(), e.toString());
            return 0;
        }
    }

    /**
     * Opens the point in time the slices of one pass share, so that together they read one snapshot, each child
     * once.
     *
     * @return its id; {@code null} when the cluster cannot open one and the job streams in {@code AUTO} mode (it
     *     then reads with one stream, which falls back to a scroll)
     */
    @Nullable
    String openPointInTime() throws IOException {
        try {
            return p.client()
                    .openPointInTime(o -> o.index(rel.childIndex())
                            .keepAlive(t -> t.time(p.keepAlive().toMillis() + "ms")))
                    .id();
        } catch (ElasticsearchException e) {
            boolean unsupported = (e.status() == 400 || e.status() == 404 || e.status() == 405 || e.status() == 501)
                    && !Reasons.of(e).contains("index_not_found_exception");
            if (p.streaming() == DocStream.Mode.AUTO && unsupported) {
                LOG.debug(
                        "cannot open a point in time on [{}] ({}); reading with one stream",
                        rel.childIndex(),
                        Reasons.of(e));
                return null;
            }
            throw new PropagationException(
                    "opening a point in time on [" + rel.childIndex() + "] failed: " + Reasons.of(e), e.status(), e);
        }
    }

    /** Closes a point in time of {@link #openPointInTime()}; it would expire after its keep-alive anyway. */
    void closePointInTime(String pitId) {
        try {
            p.client().closePointInTime(c -> c.id(pitId));
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "cannot close the point in time over [{}]; it expires after its keep-alive of {}",
                    rel.childIndex(),
                    p.keepAlive(),
                    e);
        }
    }

    /** The children of the parent whose stamp is below {@code bound} (all of them when stamps are ignored). */
    DocStream children(long bound, int pageSize) {
        return children(bound, pageSize, null, 0, 1);
    }

    /**
     * Slice {@code slice} of {@code slices} of {@link #children(long, int)}, through the shared point in time
     * {@code pitId} ({@code null}, with one slice, for a stream of its own).
     */
    DocStream children(long bound, int pageSize, @Nullable String pitId, int slice, int slices) {
        Query byParent = Query.of(q -> q.term(t -> t.field(rel.parentIdField()).value(parentId)));
        Query query = p.ignoreStamps()
                ? byParent
                : Query.of(q ->
                        q.bool(b -> b.filter(byParent).mustNot(ClientApi.range(rel.stampField(), true, bound))));
        return DocStream.of(b -> {
            b.client(p.client())
                    .index(rel.childIndex())
                    .query(query)
                    .pageSize(pageSize)
                    .keepAlive(p.keepAlive())
                    .mode(p.streaming())
                    .retryPolicy(p.readPolicy())
                    .prefetch(p.prefetch());
            if (pitId != null) {
                b.pointInTime(pitId).slice(slice, slices);
            } else if (rel.childrenRoutedByParent()) {
                b.routing(parentId);
            }
            return b;
        });
    }

    /**
     * A failed read of a {@link DocStream} as the job's failure: the same message and status, so that a job
     * reports a failed search the same way wherever it reads.
     */
    static PropagationException failed(DocStreamException e) {
        return new PropagationException(e.getMessage(), e.status(), e);
    }
}
