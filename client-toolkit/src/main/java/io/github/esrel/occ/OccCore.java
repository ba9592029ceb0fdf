package io.github.esrel.occ;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.CreateRequest;
import co.elastic.clients.elasticsearch.core.GetRequest;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.IndexRequest;
import co.elastic.clients.elasticsearch.core.IndexResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.bulk.DeleteOperation;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.ExceptionTranslator;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.Futures;
import io.github.esrel.internal.Listeners;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What every write of one entry point shares, and the requests it sends. {@link Occ} builds one from its builder and
 * hands it to the workers below it ({@link OccCalls}, {@link BulkUpdate}, {@link SeenWrites}, {@link ScriptedUpdate}),
 * none of which knows {@code Occ}; {@link ExternalVersions} builds one of its own for its requests.
 *
 * <ul>
 *   <li>The client and the {@code refresh} parameter every write carries; the JSON of the caller's documents
 *       ({@link Json}); the write log, the identity of each write ({@link WriteLog}); the retry policy and the routing
 *       check.</li>
 *   <li>The requests, each with its routing: the realtime read, the create, the write and the delete conditional on a
 *       version (the seq_no and primary term read, or an external version); a delete goes as a {@link BulkDelete}.</li>
 *   <li>The listener and its events, skipped for the no-op listener (their lambdas capture arguments, and would
 *       allocate on every call of a hot path nobody listens to), and the exception translator, which every exception
 *       of esrel's passes once on its way to the caller.</li>
 * </ul>
 *
 * <p>Thread-safe: immutable, and the client is.
 *
 * @param client the client esrel sends with (see {@code Clients}); not closed here
 * @param sender sends the requests: with {@code client} on the caller's thread, or through the async client over its
 *     transport
 * @param refresh the {@code refresh} parameter of every write, {@code null} to send none
 * @param json the JSON of the caller's documents
 * @param writeLog the write log; where writes add no entry, the field is still kept as stored and hidden from the class
 * @param retryPolicy how conflicts and rejections are retried
 * @param routingCheck whether a miss is checked for the same id under another routing
 * @param listener hears the operations
 * @param translator what esrel's exceptions become on their way to the caller
 */
record OccCore(
        ElasticsearchClient client,
        Sender sender,
        @Nullable Refresh refresh,
        Json json,
        WriteLog writeLog,
        RetryPolicy retryPolicy,
        boolean routingCheck,
        OccListener listener,
        ExceptionTranslator translator) {

    /**
     * The core of an entry point that only sends requests ({@link ExternalVersions}): it writes documents whole with
     * the client's mapper, keeps no write log, retries nothing and has no listener.
     */
    static OccCore requests(ElasticsearchClient client, @Nullable Refresh refresh) {
        return new OccCore(
                client,
                Sender.blocking(client),
                refresh,
                new Json(client._jsonpMapper(), null),
                WriteLog.off(),
                RetryPolicy.defaults(),
                false,
                OccListener.NO_OP,
                ExceptionTranslator.NONE);
    }

    // --- the requests ------------------------------------------------------------------------------
    // Each request is built once and sent by the sender: on the caller's thread for the blocking form (the future is
    // complete when returned), through the async client for the non-blocking one. The blocking methods await it.

    /** This core with its requests sent through elasticsearch-java's async client, over the same transport. */
    OccCore async() {
        return new OccCore(
                client, Sender.async(client), refresh, json, writeLog, retryPolicy, routingCheck, listener, translator);
    }

    /** Reads the document, realtime. */
    CompletableFuture<GetResponse<ObjectNode>> readAsync(String index, String id, @Nullable String routing) {
        return sender.get(GetRequest.of(g -> {
            g.index(index).id(id);
            return routing == null ? g : ClientApi.routing(g, routing);
        }));
    }

    /** The document now (realtime), with what a conditional write on it needs; {@code null} when it does not exist. */
    CompletableFuture<@Nullable Versioned<ObjectNode>> currentAsync(String index, String id, @Nullable String routing) {
        return readAsync(index, id, routing)
                .thenApply(got -> got.found()
                        ? new Versioned<>(
                                got.index(), id, routing, got.source(), got.seqNo(), got.primaryTerm(), got.version())
                        : null);
    }

    /** Creates the document with {@code source}, failing with a conflict if it exists. */
    CompletableFuture<ConditionalWrite.Stored> createAsync(
            String index, String id, @Nullable String routing, ObjectNode source) {
        return sender.create(CreateRequest.of(r -> {
                    r.index(index).id(id).document(source).refresh(refresh);
                    return routing == null ? r : ClientApi.routing(r, routing);
                }))
                .thenApply(ConditionalWrite.Stored::of);
    }

    /** Writes {@code source} over the document {@code seen} if it still has that seq_no and primary term. */
    CompletableFuture<IndexResponse> overwriteAsync(Versioned<?> seen, ObjectNode source) {
        return indexAsync(
                seen.index(),
                seen.id(),
                seen.routing(),
                source,
                i -> i.ifSeqNo(seen.seqNo()).ifPrimaryTerm(seen.primaryTerm()));
    }

    /**
     * Writes {@code document} whole, on the condition {@code condition} sets (a seq_no and primary term, or an
     * external version).
     */
    <D> CompletableFuture<IndexResponse> indexAsync(
            String index,
            String id,
            @Nullable String routing,
            D document,
            Consumer<IndexRequest.Builder<D>> condition) {
        return sender.index(IndexRequest.<D>of(i -> {
            i.index(index).id(id).document(document).refresh(refresh);
            condition.accept(i);
            return routing == null ? i : ClientApi.routing(i, routing);
        }));
    }

    <D> IndexResponse index(
            String index, String id, @Nullable String routing, D document, Consumer<IndexRequest.Builder<D>> condition)
            throws IOException {
        return Futures.await(indexAsync(index, id, routing, document, condition));
    }

    /**
     * Deletes the document {@code seen} if it still has that seq_no and primary term, as a {@link BulkDelete}; fails
     * with the delete's failure, with its status (a conflict is 409; so is a document not found at all).
     */
    CompletableFuture<ConditionalWrite.Stored> deleteAsync(Versioned<?> seen) {
        return deleteAsync(
                        seen.index(),
                        seen.id(),
                        seen.routing(),
                        d -> d.ifSeqNo(seen.seqNo()).ifPrimaryTerm(seen.primaryTerm()))
                .thenApply(item -> {
                    if (item.status() == 404) {
                        // Not found at all: as the conflict a delete conditional on a version of it answers.
                        throw Failures.ofBulkItem(
                                Failures.CONFLICT,
                                ErrorCause.of(e -> e.type("version_conflict_engine_exception")
                                        .reason("[" + seen.id() + "]: version conflict, document not found")));
                    }
                    return new ConditionalWrite.Stored(
                            item.index(),
                            orMinus1(item.seqNo()),
                            orMinus1(item.primaryTerm()),
                            orMinus1(item.version()));
                });
    }

    /**
     * Deletes the document as a {@link BulkDelete}, on the condition {@code condition} sets.
     *
     * @return the item's answer: deleted, or {@code not_found} (status 404, no error)
     */
    CompletableFuture<BulkResponseItem> deleteAsync(
            String index, String id, @Nullable String routing, Consumer<DeleteOperation.Builder> condition) {
        return sender.bulk(BulkDelete.request(refresh, d -> {
                    d.index(index).id(id);
                    condition.accept(d);
                    return routing == null ? d : d.routing(routing);
                }))
                .thenApply(BulkDelete::item);
    }

    BulkResponseItem delete(
            String index, String id, @Nullable String routing, Consumer<DeleteOperation.Builder> condition)
            throws IOException {
        return Futures.await(deleteAsync(index, id, routing, condition));
    }

    static long orMinus1(Long v) {
        return v == null ? -1 : v;
    }

    // --- the listener's events and the translator ---------------------------------------------------

    void started(String index, Outcome.Operation op) {
        if (listener != OccListener.NO_OP) {
            Listeners.safely(() -> listener.onStart(index, op), "OccListener.onStart");
        }
    }

    /** Reports the outcome of an operation and returns it. */
    <T> Outcome<T> finish(Outcome<T> outcome) {
        if (listener != OccListener.NO_OP) {
            Listeners.safely(() -> listener.onOutcome(outcome), "OccListener.onOutcome");
        }
        return outcome;
    }

    void conflict(String index, String id, int attempt) {
        if (listener != OccListener.NO_OP) {
            Listeners.safely(() -> listener.onConflict(index, id, attempt), "OccListener.onConflict");
        }
    }

    void combinedWrite(String index, int calls) {
        if (listener != OccListener.NO_OP) {
            Listeners.safely(() -> listener.onCombinedWrite(index, calls), "OccListener.onCombinedWrite");
        }
    }

    /** Reports an operation that throws {@code e}; returns what its caller gets instead (see {@link #translate}). */
    RuntimeException failed(String index, Outcome.Operation op, long startNanos, RuntimeException e) {
        if (listener != OccListener.NO_OP) {
            Duration took = since(startNanos);
            Listeners.safely(() -> listener.onFailure(index, op, e, took), "OccListener.onFailure");
        }
        return translate(e);
    }

    /** {@link #failed} for what a future failed with: an {@link Error} is thrown as it is. */
    RuntimeException failedOrError(String index, Outcome.Operation op, long startNanos, Throwable t) {
        return failed(index, op, startNanos, Futures.unchecked(t));
    }

    /**
     * What the caller gets instead of {@code e}: esrel's own exceptions go through the builder's translator, once,
     * on their way out; a caller's own (a function's exception, an argument check) stays as it is, since it is not
     * esrel's to rename.
     */
    RuntimeException translate(RuntimeException e) {
        if (translator == ExceptionTranslator.NONE || !(e instanceof OccException)) {
            return e;
        }
        RuntimeException translated = translator.translate(e);
        return translated != null ? translated : e; // a translator must not lose the exception
    }

    /** {@link Outcome#orThrow()}, with the exception it throws translated. */
    <T> Outcome<T> orThrow(Outcome<T> outcome) {
        try {
            return outcome.orThrow();
        } catch (OccException e) {
            throw translate(e);
        }
    }

    static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }
}
