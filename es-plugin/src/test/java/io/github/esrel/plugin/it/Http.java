package io.github.esrel.plugin.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Raw HTTP against a node, shared by the ITs: they check exact status codes and bodies, including for broken requests. */
public final class Http {

    public static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final URI base;
    private final Duration timeout;

    public Http(URI base) {
        this(base, Duration.ofSeconds(60));
    }

    /** @param timeout how long one request may take */
    public Http(URI base, Duration timeout) {
        this.base = base;
        this.timeout = timeout;
    }

    public URI base() {
        return base;
    }

    /** A response: status, raw body, body as JSON (missing node if not JSON). */
    public record Response(int status, String raw, JsonNode json) {
        public JsonNode get(String field) {
            return json.path(field);
        }

        public String errorType() {
            return json.path("error").path("type").asText(null);
        }

        @Override
        public String toString() {
            return status + " " + (raw.length() > 2000 ? raw.substring(0, 2000) + "..." : raw);
        }
    }

    public Response get(String path) {
        return send("GET", path, null, "application/json");
    }

    public Response post(String path, String body) {
        return send("POST", path, body, "application/json");
    }

    public Response put(String path, String body) {
        return send("PUT", path, body, "application/json");
    }

    public Response send(String method, String path, String body, String contentType) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout);
        if (body != null) {
            request.header("Content-Type", contentType);
            request.method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            HttpResponse<String> response =
                    client.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(response.statusCode(), response.body(), parse(response.body()));
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    public static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode parse(String body) {
        try {
            return body.isEmpty() ? JSON.missingNode() : JSON.readTree(body);
        } catch (IOException e) {
            return JSON.missingNode();
        }
    }
}
