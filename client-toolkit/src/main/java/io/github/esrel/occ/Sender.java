package io.github.esrel.occ;

import co.elastic.clients.elasticsearch.ElasticsearchAsyncClient;
import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.CreateRequest;
import co.elastic.clients.elasticsearch.core.CreateResponse;
import co.elastic.clients.elasticsearch.core.GetRequest;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.IndexRequest;
import co.elastic.clients.elasticsearch.core.IndexResponse;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Futures;
import java.util.concurrent.CompletableFuture;

/**
 * The one seam between the two forms of {@link Occ}'s API: how the requests the engine builds are sent. The engine
 * ({@link OccCore}'s requests, {@link ConditionalWrite}, {@link OccCalls}) is written once, over futures; the blocking
 * form sends on the caller's thread and gets futures complete when returned ({@link #blocking}), the non-blocking form
 * sends through elasticsearch-java's async client over the same transport ({@link #async}), so both forms go through
 * the transport esrel wraps around the application's (its resend guard included).
 */
interface Sender {

    CompletableFuture<GetResponse<ObjectNode>> get(GetRequest request);

    CompletableFuture<CreateResponse> create(CreateRequest<ObjectNode> request);

    <D> CompletableFuture<IndexResponse> index(IndexRequest<D> request);

    CompletableFuture<BulkResponse> bulk(BulkRequest request);

    CompletableFuture<SearchResponse<Void>> search(SearchRequest request);

    /** True when the futures are complete when returned: the requests were sent on the caller's thread. */
    boolean blocking();

    /** Sends on the caller's thread with {@code client}. */
    static Sender blocking(ElasticsearchClient client) {
        return new Sender() {
            @Override
            public CompletableFuture<GetResponse<ObjectNode>> get(GetRequest request) {
                return Futures.now(() -> client.get(request, ObjectNode.class));
            }

            @Override
            public CompletableFuture<CreateResponse> create(CreateRequest<ObjectNode> request) {
                return Futures.now(() -> client.create(request));
            }

            @Override
            public <D> CompletableFuture<IndexResponse> index(IndexRequest<D> request) {
                return Futures.now(() -> client.index(request));
            }

            @Override
            public CompletableFuture<BulkResponse> bulk(BulkRequest request) {
                return Futures.now(() -> client.bulk(request));
            }

            @Override
            public CompletableFuture<SearchResponse<Void>> search(SearchRequest request) {
                return Futures.now(() -> client.search(request, Void.class));
            }

            @Override
            public boolean blocking() {
                return true;
            }
        };
    }

    /** Sends without blocking, through the async client over {@code client}'s transport and options. */
    static Sender async(ElasticsearchClient client) {
        ClientApi.loadJsonProviders(); // here, not on an I/O thread: the lookup reads jar files
        ElasticsearchAsyncClient async = new ElasticsearchAsyncClient(client._transport(), client._transportOptions());
        return new Sender() {
            @Override
            public CompletableFuture<GetResponse<ObjectNode>> get(GetRequest request) {
                return async.get(request, ObjectNode.class);
            }

            @Override
            public CompletableFuture<CreateResponse> create(CreateRequest<ObjectNode> request) {
                return async.create(request);
            }

            @Override
            public <D> CompletableFuture<IndexResponse> index(IndexRequest<D> request) {
                return async.index(request);
            }

            @Override
            public CompletableFuture<BulkResponse> bulk(BulkRequest request) {
                return async.bulk(request);
            }

            @Override
            public CompletableFuture<SearchResponse<Void>> search(SearchRequest request) {
                return async.search(request, Void.class);
            }

            @Override
            public boolean blocking() {
                return false;
            }
        };
    }
}
