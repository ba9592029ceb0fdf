package io.github.esrel.plugin.routing.it;

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

/** Raw HTTP against a node: the ITs check exact status codes and bodies, including for broken requests. */
final class Http {

    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final URI base;

    Http(URI base) {
        this.base = base;
    }

    /** A response: status, raw body, body as JSON (missing node if not JSON). */
    record Response(int status, String raw, JsonNode json) {
        JsonNode get(String field) {
            return json.path(field);
        }

        String errorType() {
            return json.path("error").path("type").asText(null);
        }

        @Override
        public String toString() {
            return status + " " + (raw.length() > 2000 ? raw.substring(0, 2000) + "..." : raw);
        }
    }

    Response get(String path) {
        return send("GET", path, null, "application/json");
    }

    Response post(String path, String body) {
        return send("POST", path, body, "application/json");
    }

    Response put(String path, String body) {
        return send("PUT", path, body, "application/json");
    }

    Response send(String method, String path, String body, String contentType) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60));
        if (body != null) {
            request.header("Content-Type", contentType);
            request.method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(response.statusCode(), response.body(), parse(response.body()));
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String json(Object value) {
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
