package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.json.JsonData;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import io.github.esrel.doc.DocStreamException;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.Attempts;
import java.io.IOException;

/** The reads of one job: its parent, the refresh of the child index, the stream of children still to stamp. */
final class JobReads {

    private final PropagationSettings p;
    private final Relation rel;
    private final String parentId;

    JobReads(PropagationSettings p, String parentId) {
        this.p = p;
        this.rel = p.relation();
        this.parentId = parentId;
    }

    /** The parent now (a realtime get), or {@code null} if it does not exist. */
    ChildRewrite.Parent parent() throws IOException {
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

    /** The children of the parent whose stamp is below {@code bound} (all of them when stamps are ignored). */
    DocStream children(long bound, int pageSize) {
        Query byParent = Query.of(q -> q.term(t -> t.field(rel.parentIdField()).value(parentId)));
        Query query = p.ignoreStamps()
                ? byParent
                : Query.of(q -> q.bool(b -> b.filter(byParent)
                        .mustNot(m -> m.range(
                                r -> r.untyped(u -> u.field(rel.stampField()).gte(JsonData.of(bound)))))));
        return DocStream.of(b -> {
            b.client(p.client())
                    .index(rel.childIndex())
                    .query(query)
                    .pageSize(pageSize)
                    .keepAlive(p.keepAlive())
                    .mode(p.streaming())
                    .retryPolicy(p.readPolicy())
                    .prefetch(p.prefetch());
            if (rel.childrenRoutedByParent()) {
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
