package io.github.esrel;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.transport.ElasticsearchTransport;
import co.elastic.clients.transport.Endpoint;
import co.elastic.clients.transport.TransportOptions;
import io.github.esrel.internal.Clients;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A transport that keeps every request sent through it, so that a test can have Elasticsearch apply one again: the
 * copy a load balancer or the low-level client resends after an I/O error ({@link #sendTwice}), or the copy a node
 * that was frozen runs late ({@link #replay}). A copy is the same request object handed to the same endpoint again,
 * which writes the same HTTP request (method, path, parameters, body). Works on both client lines: esrel uses a
 * transport of the application's making as it is when its mapper is Jackson's.
 */
public final class ReplayingTransport implements ElasticsearchTransport {

    /**
     * A request as it was sent.
     *
     * @param request the request object
     * @param endpoint its endpoint
     * @param options the options it was sent with
     */
    public record Sent(Object request, Endpoint<?, ?, ?> endpoint, TransportOptions options) {
        /** The endpoint's id: {@code create}, {@code index}, {@code bulk}, ... */
        public String id() {
            return endpoint.id();
        }

        /** The request's path and query, such as {@code /state/_create/intent:v:6f1c...}. */
        public String url() {
            return requestUrl(endpoint, request);
        }

        @SuppressWarnings("unchecked")
        private static <Q> String requestUrl(Endpoint<Q, ?, ?> endpoint, Object request) {
            return endpoint.requestUrl((Q) request);
        }
    }

    private final ElasticsearchTransport delegate;
    private final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final AtomicReference<Predicate<Sent>> twice = new AtomicReference<>();

    private ReplayingTransport(ElasticsearchTransport delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate cannot be null");
    }

    /**
     * A replaying transport over {@code client}'s transport as esrel adopts it: on the 8.x line's legacy transport,
     * which reports error statuses as {@code ResponseException}s, wrapped so that they come as
     * {@code ElasticsearchException}s, as esrel sees them (esrel takes a transport of the application's making as it
     * is, so this one must do what esrel would have done).
     *
     * @param client the client whose transport sends the requests
     * @return the replaying transport; {@link #client()} is the client to hand to the code under test
     */
    public static ReplayingTransport of(ElasticsearchClient client) {
        return new ReplayingTransport(Clients.adopt(client)._transport());
    }

    /** A client on this transport. */
    public ElasticsearchClient client() {
        return new ElasticsearchClient(this);
    }

    /** The requests sent so far that match. */
    public List<Sent> sent(Predicate<Sent> which) {
        return sent.stream().filter(which).toList();
    }

    /**
     * Sends the next request that matches twice, once: the first copy is applied and its answer dropped, the caller
     * gets the second copy's answer, as after a resend.
     */
    public void sendTwice(Predicate<Sent> which) {
        twice.set(which);
    }

    /**
     * Sends a request sent earlier once more, as a late copy.
     *
     * @return the answer to the copy
     * @throws IOException if it cannot be sent
     * @throws co.elastic.clients.elasticsearch._types.ElasticsearchException if Elasticsearch refuses it
     */
    public Object replay(Sent s) throws IOException {
        return send(s.request(), s.endpoint(), s.options());
    }

    @SuppressWarnings("unchecked")
    private <Q, R, E> R send(Object request, Endpoint<Q, R, E> endpoint, TransportOptions options) throws IOException {
        return delegate.performRequest((Q) request, endpoint, options);
    }

    @Override
    public <Q, R, E> R performRequest(Q request, Endpoint<Q, R, E> endpoint, TransportOptions options)
            throws IOException {
        Sent s = new Sent(request, endpoint, options);
        sent.add(s);
        Predicate<Sent> resend = twice.get();
        if (resend != null && resend.test(s) && twice.compareAndSet(resend, null)) {
            try {
                delegate.performRequest(request, endpoint, options);
            } catch (IOException | RuntimeException lost) {
                // The first copy's answer is the one lost; only the second reaches the caller.
            }
        }
        return delegate.performRequest(request, endpoint, options);
    }

    @Override
    public <Q, R, E> CompletableFuture<R> performRequestAsync(
            Q request, Endpoint<Q, R, E> endpoint, TransportOptions options) {
        sent.add(new Sent(request, endpoint, options));
        return delegate.performRequestAsync(request, endpoint, options);
    }

    @Override
    public JsonpMapper jsonpMapper() {
        return delegate.jsonpMapper();
    }

    @Override
    public TransportOptions options() {
        return delegate.options();
    }

    @Override
    public void close() {
        // The delegate belongs to the client it was taken from.
    }
}
