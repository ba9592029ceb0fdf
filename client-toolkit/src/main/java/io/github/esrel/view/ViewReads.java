package io.github.esrel.view;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Failures;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The reads of many documents a view makes, in its batch size and under its read policy: multi-gets
 * resent while an item is rejected (429), and streams of whole indices or of a parent's sources.
 */
final class ViewReads {

    private final ViewSettings settings;

    ViewReads(ViewSettings settings) {
        this.settings = settings;
    }

    /**
     * A realtime multi-get, resent as a whole while any item is rejected (429): the items that were not
     * rejected are cheap to read again, and the callers need every item of a batch.
     *
     * @param includes {@code null} for whole sources, an empty list for none, else these fields
     * @throws ViewException if an item is still rejected when the read policy gives up
     */
    MgetResponse<ObjectNode> mget(String index, List<Rebuilder.Ref> refs, @Nullable List<String> includes)
            throws IOException {
        Attempts attempts = settings.readPolicy().attempts();
        while (true) {
            MgetResponse<ObjectNode> r = settings.client()
                    .mget(
                            m -> {
                                m.index(index);
                                for (Rebuilder.Ref ref : refs) {
                                    m.docs(d -> {
                                        d.id(ref.id());
                                        if (ref.routing() != null) {
                                            ClientApi.routing(d, ref.routing());
                                        }
                                        if (includes != null && includes.isEmpty()) {
                                            d.source(s -> s.fetch(false));
                                        } else if (includes != null) {
                                            d.source(s -> s.filter(f -> f.includes(includes)));
                                        }
                                        return d;
                                    });
                                }
                                return m;
                            },
                            ObjectNode.class);
            Optional<MultiGetResponseItem<ObjectNode>> rejected = r.docs().stream()
                    .filter(MultiGetResponseItem::isFailure)
                    .filter(d -> Failures.statusOf(d.failure().error()) == Failures.TOO_MANY_REQUESTS)
                    .findFirst();
            if (rejected.isEmpty()) {
                return r;
            }
            ElasticsearchException e =
                    Failures.ofBulkItem(429, rejected.get().failure().error());
            if (!attempts.retryAfter(e)) {
                throw new ViewException(
                        "reading [" + index + "] was rejected (429) through every retry: "
                                + Reasons.of(rejected.get().failure().error()),
                        429,
                        e);
            }
        }
    }

    /**
     * Streams what {@code query} matches in {@code index} ({@code null}: everything) as of now, a page at
     * a time, in constant memory.
     *
     * @param includes the source fields to fetch when {@code withSource}
     */
    void stream(
            String index,
            @Nullable Query query,
            boolean withSource,
            List<String> includes,
            StateStore.PageHandler<Hit<ObjectNode>> handler)
            throws IOException {
        try (DocStream s = DocStream.of(b -> {
            b.client(settings.client())
                    .index(index)
                    .pageSize(settings.batchSize())
                    .retryPolicy(settings.readPolicy())
                    .fetchSource(withSource)
                    .sourceIncludes(includes);
            if (query != null) {
                b.query(query);
            }
            return b;
        })) {
            for (List<Hit<ObjectNode>> page = s.next(); !page.isEmpty(); page = s.next()) {
                handler.accept(page);
            }
        }
    }
}
