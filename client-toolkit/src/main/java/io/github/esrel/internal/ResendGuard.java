package io.github.esrel.internal;

import co.elastic.clients.transport.ElasticsearchTransport;
import co.elastic.clients.transport.Endpoint;
import co.elastic.clients.transport.JsonEndpoint;
import co.elastic.clients.transport.TransportOptions;
import co.elastic.clients.transport.endpoints.DelegatingJsonEndpoint;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * The transport every esrel client sends through: esrel's requests that change something are never sent twice.
 *
 * <p>Why: when a request fails with an I/O error, the low-level clients ({@code RestClient} of the 8.x line,
 * {@code Rest5Client} of 9.x) send the same request again to the next host of the client, and elasticsearch-java's
 * own retries ({@code RetryConfig}, off by default) send it again too. For a read that is failover. For a write whose
 * answer was lost after the node executed it, the copy is executed a second time, or answers a conflict with the
 * write itself (409) that looks like another writer's: a vote counted twice, a lock taken twice, a grant released
 * twice. With one host the same failure reaches the caller as an I/O error, which esrel reports as what it is: an
 * outcome that is not known. So for each such request this transport has the low-level client report every copy it
 * sends ({@link SendAttempts}): another copy goes only where no earlier one can have been executed (it could not
 * connect, or Elasticsearch refused it before executing it); otherwise the request ends with an
 * {@link UnansweredRequestException}, as on a client of one host. Every client configuration then behaves alike:
 * one host or several, behind {@code spring.elasticsearch.uris} or a {@code RestClient.builder(h1, h2, h3)}.
 *
 * <p>Reads (GET and HEAD, searches, multi-gets, counts, point-in-time and scroll calls, refreshes, and esrel plugin
 * calls marked read-only) pass unchanged and fail over as before. The application's own requests are not touched:
 * only esrel's clients go through this transport.
 *
 * <p>A transport whose options are neither {@code Rest5ClientOptions} nor {@code RestClientOptions} (one of the
 * application's making) is passed through as it is: esrel cannot see its copies, and its writes rely on what esrel's
 * write identities recognise (the write log of {@code Occ}, lock identities).
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
final class ResendGuard extends ForwardingTransport {

    /** Endpoints (elasticsearch-java's ids without their {@code es/} prefix) sent with POST or DELETE that only read. */
    private static final Set<String> READS = Set.of(
            "search",
            "msearch",
            "mget",
            "count",
            "open_point_in_time",
            "close_point_in_time",
            "scroll",
            "clear_scroll",
            "field_caps",
            "search_template",
            "msearch_template",
            "indices.refresh",
            "indices.analyze",
            "explain",
            "termvectors",
            "mtermvectors");

    /** Writes by id that Elasticsearch takes by POST as well as by PUT. */
    private static final Set<String> POSTABLE = Set.of("es/index", "es/create");

    private final boolean seesCopies;

    private ResendGuard(ElasticsearchTransport delegate) {
        super(delegate);
        this.seesCopies =
                delegate.options() != null && ClientApi.reportingCopies(delegate.options(), new SendAttempts()) != null;
    }

    static ElasticsearchTransport wrap(ElasticsearchTransport transport) {
        return transport instanceof ResendGuard ? transport : new ResendGuard(transport);
    }

    /**
     * Whether every copy of a request sent through this transport is seen (its low-level client is one esrel knows):
     * if not, a conflict may be a copy's answer.
     */
    boolean seesCopies() {
        return seesCopies;
    }

    /** Whether {@code request} only reads, so that another copy of it is harmless. */
    static <RequestT> boolean readOnly(RequestT request, Endpoint<RequestT, ?, ?> endpoint) {
        if (request instanceof RestCall call) {
            return call.readOnly();
        }
        String method = endpoint.method(request);
        String id = endpoint.id();
        return "GET".equals(method)
                || "HEAD".equals(method)
                || READS.contains(id.startsWith("es/") ? id.substring(3) : id);
    }

    @Override
    public <RequestT, ResponseT, ErrorT> ResponseT performRequest(
            RequestT request, Endpoint<RequestT, ResponseT, ErrorT> endpoint, TransportOptions options)
            throws IOException {
        TransportOptions guarded = readOnly(request, endpoint) ? null : guard(options);
        if (guarded == null) {
            return delegate.performRequest(request, endpoint, options);
        }
        Endpoint<RequestT, ResponseT, ErrorT> sent = posted(request, endpoint);
        try {
            return delegate.performRequest(request, sent, guarded);
        } catch (RuntimeException e) {
            ResendRefusedException refused = refusal(e);
            if (refused != null) {
                throw unanswered(request, sent, refused);
            }
            throw e;
        }
    }

    @Override
    public <RequestT, ResponseT, ErrorT> CompletableFuture<ResponseT> performRequestAsync(
            RequestT request, Endpoint<RequestT, ResponseT, ErrorT> endpoint, TransportOptions options) {
        TransportOptions guarded = readOnly(request, endpoint) ? null : guard(options);
        if (guarded == null) {
            return delegate.performRequestAsync(request, endpoint, options);
        }
        Endpoint<RequestT, ResponseT, ErrorT> sent = posted(request, endpoint);
        CompletableFuture<ResponseT> answer;
        try {
            answer = delegate.performRequestAsync(request, sent, guarded);
        } catch (ResendRefusedException e) {
            return CompletableFuture.failedFuture(unanswered(request, sent, e));
        }
        return answer.handle((response, failure) -> {
            if (failure == null) {
                return response;
            }
            ResendRefusedException refused = refusal(failure);
            if (refused != null) {
                throw new CompletionException(unanswered(request, sent, refused));
            }
            throw failure instanceof CompletionException ce ? ce : new CompletionException(failure);
        });
    }

    /**
     * {@code endpoint}, sent with POST where it would be sent with PUT (an index or create by id, which Elasticsearch
     * takes by either): a proxy in front of Elasticsearch may send a PUT again to another node when its answer is
     * lost, as HTTP calls PUT idempotent (nginx does by default), but not a POST.
     */
    private static <RequestT, ResponseT, ErrorT> Endpoint<RequestT, ResponseT, ErrorT> posted(
            RequestT request, Endpoint<RequestT, ResponseT, ErrorT> endpoint) {
        if (endpoint instanceof JsonEndpoint<RequestT, ResponseT, ErrorT> json
                && POSTABLE.contains(endpoint.id())
                && "PUT".equals(endpoint.method(request))) {
            return new DelegatingJsonEndpoint<>(json) {
                @Override
                public String method(RequestT r) {
                    return "POST";
                }
            };
        }
        return endpoint;
    }

    /** {@code options} with every copy reported to a fresh {@link SendAttempts}; {@code null} if it cannot be. */
    private @Nullable TransportOptions guard(@Nullable TransportOptions options) {
        SendAttempts attempts = new SendAttempts();
        TransportOptions own = delegate.options();
        TransportOptions given = options != null ? options : own;
        TransportOptions reporting = ClientApi.reportingCopies(given, attempts);
        if (reporting == null && given != own && own != null) {
            // Options of no client's own kind (a DefaultTransportOptions made by the application) on a transport of a
            // low-level client: the transport's own options with their headers, parameters and warning handler.
            TransportOptions.Builder merged = own.toBuilder();
            given.headers().forEach(h -> merged.setHeader(h.getKey(), h.getValue()));
            given.queryParameters().forEach(merged::setParameter);
            if (given.onWarnings() != null) {
                merged.onWarnings(given.onWarnings());
            }
            reporting = ClientApi.reportingCopies(merged.build(), attempts);
        }
        return reporting;
    }

    private static @Nullable ResendRefusedException refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ResendRefusedException r) {
                return r;
            }
        }
        return null;
    }

    private static <RequestT> UnansweredRequestException unanswered(
            RequestT request, Endpoint<RequestT, ?, ?> endpoint, ResendRefusedException refused) {
        String url;
        try {
            url = endpoint.method(request) + " " + endpoint.requestUrl(request);
        } catch (RuntimeException e) {
            url = endpoint.id();
        }
        return new UnansweredRequestException("[" + url + "]", refused);
    }
}
