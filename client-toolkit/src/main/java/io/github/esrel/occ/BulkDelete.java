package io.github.esrel.occ;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.bulk.DeleteOperation;
import co.elastic.clients.util.ObjectBuilder;
import io.github.esrel.retry.Failures;
import java.io.IOException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A delete of one document sent as a {@code _bulk} of one: a {@code POST}. A proxy or load balancer in front of
 * Elasticsearch sends a {@code DELETE} whose answer it lost again to another node (HTTP calls it idempotent; nginx
 * does by default), and the copy of a conditional delete answers a conflict with the delete it repeats; it does not
 * send a {@code POST} again.
 */
final class BulkDelete {

    private BulkDelete() {}

    /**
     * Sends the delete.
     *
     * @param delete sets the delete: index, id, routing and its condition
     * @return the item's answer: deleted, or {@code not_found} (status 404, no error)
     * @throws co.elastic.clients.elasticsearch._types.ElasticsearchException the item's error, with its status (a
     *     conflict is 409), or the request's
     */
    static BulkResponseItem send(
            ElasticsearchClient client,
            @Nullable Refresh refresh,
            Function<DeleteOperation.Builder, ObjectBuilder<DeleteOperation>> delete)
            throws IOException {
        return item(client.bulk(request(refresh, delete)));
    }

    /** The {@code _bulk} of one delete. */
    static BulkRequest request(
            @Nullable Refresh refresh, Function<DeleteOperation.Builder, ObjectBuilder<DeleteOperation>> delete) {
        return BulkRequest.of(b -> {
            b.operations(op -> op.delete(delete));
            return refresh == null ? b : b.refresh(refresh);
        });
    }

    /**
     * The answer of the delete: deleted, or {@code not_found} (status 404, no error).
     *
     * @throws co.elastic.clients.elasticsearch._types.ElasticsearchException the item's error, with its status
     */
    static BulkResponseItem item(BulkResponse r) {
        BulkResponseItem item = r.items().get(0);
        if (item.error() != null) {
            throw Failures.ofBulkItem(item.status(), item.error());
        }
        return item;
    }
}
