package io.github.esrel.internal;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorResponse;
import co.elastic.clients.json.JsonpDeserializer;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.transport.ElasticsearchTransport;
import co.elastic.clients.transport.Endpoint;
import co.elastic.clients.transport.JsonEndpoint;
import co.elastic.clients.transport.TransportException;
import co.elastic.clients.transport.TransportOptions;
import co.elastic.clients.transport.http.TransportHttpClient;
import co.elastic.clients.util.BinaryData;
import co.elastic.clients.util.ByteArrayBinaryData;
import co.elastic.clients.util.MissingRequiredPropertyException;
import jakarta.json.JsonException;
import jakarta.json.stream.JsonParser;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.http.Header;
import org.apache.http.util.EntityUtils;
import org.elasticsearch.client.Response;
import org.elasticsearch.client.ResponseException;
import org.jspecify.annotations.Nullable;

/**
 * A transport that reports HTTP error statuses the way elasticsearch-java's default transport does, in front of
 * its {@code RestClientTransport} (the only transport of the 8.x line, the legacy one of 9.x).
 *
 * <p>Why: that transport lets the low-level {@code RestClient} throw a raw {@link ResponseException} (an
 * {@code IOException}) for every status but 400, 401, 403, 404 and 405, so a 409 version conflict or a 429
 * rejection reaches the caller as an I/O failure instead of an {@link ElasticsearchException} with its status and
 * error type. esrel decides on exactly those (409: re-read and retry; 429: back off), so this class decodes such
 * an answer as the transport would have for the other statuses: Elasticsearch's error body becomes an {@link
 * ElasticsearchException}, an answer the endpoint accepts becomes its response, anything else a {@link
 * TransportException} carrying the status. Every other call and failure passes through unchanged.
 *
 * <p>Loaded only for a client on that transport, so {@code esrel-client} needs the low-level client's jar only
 * where the application uses it.
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
final class StatusNormalizingTransport extends ForwardingTransport {

    private StatusNormalizingTransport(ElasticsearchTransport delegate) {
        super(delegate);
    }

    static ElasticsearchTransport wrap(ElasticsearchTransport transport) {
        return transport instanceof StatusNormalizingTransport ? transport : new StatusNormalizingTransport(transport);
    }

    @Override
    public <RequestT, ResponseT, ErrorT> ResponseT performRequest(
            RequestT request, Endpoint<RequestT, ResponseT, ErrorT> endpoint, TransportOptions options)
            throws IOException {
        try {
            return delegate.performRequest(request, endpoint, options);
        } catch (ResponseException e) {
            return decode(e, endpoint);
        }
    }

    @Override
    public <RequestT, ResponseT, ErrorT> CompletableFuture<ResponseT> performRequestAsync(
            RequestT request, Endpoint<RequestT, ResponseT, ErrorT> endpoint, TransportOptions options) {
        return delegate.performRequestAsync(request, endpoint, options).handle((response, failure) -> {
            if (failure == null) {
                return response;
            }
            Throwable cause =
                    failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (cause instanceof ResponseException e) {
                try {
                    return decode(e, endpoint);
                } catch (IOException | RuntimeException decoded) {
                    throw new CompletionException(decoded);
                }
            }
            throw failure instanceof CompletionException ce ? ce : new CompletionException(failure);
        });
    }

    private <ResponseT, ErrorT> ResponseT decode(ResponseException e, Endpoint<?, ResponseT, ErrorT> endpoint)
            throws IOException {
        Response response = e.getResponse();
        int status = response.getStatusLine().getStatusCode();
        byte[] body = response.getEntity() == null ? null : EntityUtils.toByteArray(response.getEntity());
        JsonpMapper mapper = delegate.jsonpMapper();
        HttpResponse failed = new HttpResponse(response, body);
        if (endpoint.isError(status)) {
            JsonpDeserializer<ErrorT> errors = endpoint.errorDeserializer(status);
            if (errors != null && body != null) {
                try (JsonParser parser = mapper.jsonProvider().createParser(new ByteArrayInputStream(body))) {
                    if (errors.deserialize(parser, mapper) instanceof ErrorResponse error) {
                        throw new ElasticsearchException(endpoint.id(), error);
                    }
                } catch (JsonException | MissingRequiredPropertyException notElasticsearchShaped) {
                    // Not Elasticsearch's {"error", "status"} body: reported with its status below.
                }
            }
            throw new TransportException(failed, "Request failed with status code '" + status + "'", endpoint.id(), e);
        }
        if (endpoint instanceof JsonEndpoint<?, ResponseT, ?> json
                && json.responseDeserializer() != null
                && body != null) {
            try (JsonParser parser = mapper.jsonProvider().createParser(new ByteArrayInputStream(body))) {
                return json.responseDeserializer().deserialize(parser, mapper);
            } catch (RuntimeException decode) {
                throw new TransportException(failed, "Failed to decode response", endpoint.id(), decode);
            }
        }
        throw e;
    }

    /** The low-level answer as the transport layer's response type, for {@link TransportException#statusCode()}. */
    private record HttpResponse(Response response, byte @Nullable [] bytes) implements TransportHttpClient.Response {
        @Override
        public TransportHttpClient.Node node() {
            return new TransportHttpClient.Node(URI.create(response.getHost().toURI()));
        }

        @Override
        public int statusCode() {
            return response.getStatusLine().getStatusCode();
        }

        @Override
        public String header(String name) {
            return response.getHeader(name);
        }

        @Override
        public List<String> headers(String name) {
            List<String> values = new ArrayList<>();
            for (Header h : response.getHeaders()) {
                if (h.getName().equalsIgnoreCase(name)) {
                    values.add(h.getValue());
                }
            }
            return values;
        }

        @Override
        public @Nullable BinaryData body() {
            if (bytes == null) {
                return null;
            }
            String contentType =
                    response.getEntity() == null || response.getEntity().getContentType() == null
                            ? null
                            : response.getEntity().getContentType().getValue();
            return new ByteArrayBinaryData(bytes, contentType);
        }

        @Override
        public Object originalResponse() {
            return response;
        }

        @Override
        public void close() {}
    }
}
