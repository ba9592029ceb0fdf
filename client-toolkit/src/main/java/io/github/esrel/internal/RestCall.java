package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.TransportException;
import co.elastic.clients.transport.endpoints.SimpleEndpoint;
import com.fasterxml.jackson.databind.JsonNode;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Calls a REST endpoint the typed client does not know (the esrel plugin's) through the client's
 * own transport, so that its authentication, TLS, node selection and JSON mapper apply unchanged.
 * Error responses surface as the client's usual {@code ElasticsearchException} with status and cause.
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
public final class RestCall {

    private final String method;
    private final String path;
    private final Map<String, String> query;
    private final @Nullable Object body;
    private final boolean readOnly;

    private RestCall(String method, String path, Map<String, String> query, @Nullable Object body, boolean readOnly) {
        this.method = Objects.requireNonNull(method);
        this.path = Objects.requireNonNull(path);
        this.query = Map.copyOf(query);
        this.body = body;
        this.readOnly = readOnly;
    }

    public static RestCall get(String path, Map<String, String> query) {
        return new RestCall("GET", path, query, null, true);
    }

    /** A PUT whose body is serialized by the client's mapper (a {@code JsonData} goes as the JSON it holds). */
    public static RestCall put(String path, Map<String, String> query, Object body) {
        return new RestCall("PUT", path, query, body, false);
    }

    /** A POST whose body is serialized by the client's mapper (Jackson for the usual setup). */
    public static RestCall post(String path, Map<String, String> query, Object body) {
        return new RestCall("POST", path, query, body, false);
    }

    /**
     * A POST that only reads (the plugin's routing calculation): the client may send it again to another host when
     * its answer is lost, where a POST that changes something is sent once (see {@link ResendGuard}).
     */
    public static RestCall postRead(String path, Map<String, String> query, Object body) {
        return new RestCall("POST", path, query, body, true);
    }

    /** Whether the call only reads, so that another copy of it is harmless. */
    boolean readOnly() {
        return readOnly;
    }

    /**
     * Sends the call and returns its answer as a Jackson 2 tree, whatever the client's mapper: a Jackson 3 or JSON-B
     * mapper parses the answer, which then reaches the tree as its JSON text.
     */
    public JsonNode sendForTree(ElasticsearchClient client) throws IOException {
        JsonpMapper mapper = client._jsonpMapper();
        JsonData answer = send(client);
        return mapper instanceof JacksonJsonpMapper
                ? answer.to(JsonNode.class, mapper)
                : JsonTrees.parse(answer.toJson(mapper).toString());
    }

    /**
     * Sends the call and returns its answer as a JSON object: for esrel's reads of node info, cluster state, settings
     * and mappings, which go as plain JSON because the typed classes differ between client versions.
     */
    public JsonObject sendForObject(ElasticsearchClient client) throws IOException {
        return send(client).toJson(client._jsonpMapper()).asJsonObject();
    }

    public JsonData send(ElasticsearchClient client) throws IOException {
        return client._transport().performRequest(this, new Endpoint(path, new int[0]), client._transportOptions());
    }

    /**
     * Sends the call and returns the status with the JSON body, for a 2xx answer and for the error
     * statuses listed in {@code expected}, whatever the shape of their body. {@link #send} cannot do
     * this: the transport parses every error body as Elasticsearch's {@code {"error", "status"}} shape,
     * and an endpoint that answers, say, 409 with its own document ({@code {"acquired": false, ...}})
     * surfaces as a {@code TransportException} "Failed to decode error response" with the body lost.
     * Other error statuses fail as with {@link #send}. The body is {@code null} when an expected error
     * came without one.
     */
    public Answer exchange(ElasticsearchClient client, int... expected) throws IOException {
        Endpoint endpoint = new Endpoint(path, expected.clone());
        try {
            JsonData body = client._transport().performRequest(this, endpoint, client._transportOptions());
            return new Answer(endpoint.status, body);
        } catch (TransportException e) {
            if (endpoint.expects(e.statusCode())) {
                return new Answer(e.statusCode(), null);
            }
            throw e;
        }
    }

    /** The HTTP status and JSON body of an answer from {@link #exchange}. */
    public record Answer(int status, @Nullable JsonData body) {
        public boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    /**
     * One endpoint per call: the transport tells an endpoint the status of the answer only through
     * {@link #isError}, before decoding the body, on the calling thread; that is where it is recorded.
     */
    private static final class Endpoint extends SimpleEndpoint<RestCall, JsonData> {
        private final int[] expected;
        private int status;

        Endpoint(String path, int[] expected) {
            super(
                    "esrel" + path.replace('/', '.'),
                    c -> c.method,
                    c -> c.path,
                    c -> Map.of(),
                    c -> c.query,
                    c -> c.body == null ? Map.of() : Map.of("Content-Type", "application/json"),
                    c -> c.body,
                    JsonData._DESERIALIZER);
            this.expected = expected;
        }

        boolean expects(int statusCode) {
            for (int e : expected) {
                if (e == statusCode) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public boolean isError(int statusCode) {
            status = statusCode;
            return super.isError(statusCode) && !expects(statusCode);
        }
    }

    /** Percent-encodes one path segment (an index name, say). */
    public static String segment(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8)
                .replace("+", "%20");
    }

    @Override
    public String toString() {
        return method + " " + path + (query.isEmpty() ? "" : " " + query);
    }
}
