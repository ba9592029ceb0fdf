package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.transport.endpoints.SimpleEndpoint;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;

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
    private final Object body;

    private RestCall(String method, String path, Map<String, String> query, Object body) {
        this.method = Objects.requireNonNull(method);
        this.path = Objects.requireNonNull(path);
        this.query = Map.copyOf(query);
        this.body = body;
    }

    public static RestCall get(String path, Map<String, String> query) {
        return new RestCall("GET", path, query, null);
    }

    /** A POST whose body is serialized by the client's mapper (Jackson for the usual setup). */
    public static RestCall post(String path, Map<String, String> query, Object body) {
        return new RestCall("POST", path, query, body);
    }

    /** Sends the call and maps the JSON answer to {@code type} with the client's mapper. */
    public <T> T send(ElasticsearchClient client, Class<T> type) throws IOException {
        return send(client).to(type, client._jsonpMapper());
    }

    public JsonData send(ElasticsearchClient client) throws IOException {
        SimpleEndpoint<RestCall, JsonData> endpoint = new SimpleEndpoint<>(
            "esrel" + path.replace('/', '.'),
            c -> c.method,
            c -> c.path,
            c -> Map.of(),
            c -> c.query,
            c -> c.body == null ? Map.of() : Map.of("Content-Type", "application/json"),
            c -> c.body,
            JsonData._DESERIALIZER);
        return client._transport().performRequest(this, endpoint, client._transportOptions());
    }

    /** Percent-encodes one path segment (an index name, say). */
    public static String segment(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Override
    public String toString() {
        return method + " " + path + (query.isEmpty() ? "" : " " + query);
    }
}
