package io.github.esrel.testenv;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * Plain HTTP requests with a timeout each, for probing nodes while they start and for the fault
 * operations, before (and independently of) the Elasticsearch client, which would mark a node that
 * is not up yet as dead and wait its socket timeout on a frozen one.
 */
final class EsHttp {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient PLAIN = newClient(Optional.empty());

    private final Map<String, String> headers;
    private final HttpClient client;

    EsHttp(Map<String, String> headers) {
        this(headers, Optional.empty());
    }

    /** With the headers every request needs and, for HTTPS with a private CA, a context trusting it. */
    EsHttp(Map<String, String> headers, Optional<SSLContext> sslContext) {
        this.headers = Map.copyOf(headers);
        this.client = sslContext.isPresent() ? newClient(sslContext) : PLAIN;
    }

    private static HttpClient newClient(Optional<SSLContext> sslContext) {
        // A connection through Docker's port proxy took over 2 s on a machine at load 14 (measured); a node that is
        // down
        // refuses at once, and a frozen one still accepts (the kernel does), so a longer connect wait costs nothing.
        HttpClient.Builder builder =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10));
        sslContext.ifPresent(builder::sslContext);
        return builder.build();
    }

    /** A response: the status and the body parsed as JSON (a missing node if it was not JSON). */
    record Response(int status, JsonNode body) {
        boolean ok() {
            return status / 100 == 2;
        }
    }

    /**
     * GETs {@code pathAndQuery} (starting with {@code /}) from the node at {@code base}.
     *
     * @throws IOException if the node does not answer within {@code timeout}
     */
    Response get(URI base, String pathAndQuery, Duration timeout) throws IOException {
        return send(base, HttpRequest.newBuilder(base.resolve(pathAndQuery)).GET(), timeout);
    }

    /**
     * PUTs the JSON {@code body} to {@code pathAndQuery} on the node at {@code base}.
     *
     * @throws IOException if the node does not answer within {@code timeout}
     */
    Response put(URI base, String pathAndQuery, String body, Duration timeout) throws IOException {
        return send(
                base,
                HttpRequest.newBuilder(base.resolve(pathAndQuery))
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(body)),
                timeout);
    }

    private Response send(URI base, HttpRequest.Builder request, Duration timeout) throws IOException {
        request.timeout(timeout);
        headers.forEach(request::header);
        HttpResponse<String> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + base, e);
        }
        return new Response(response.statusCode(), parse(response.body()));
    }

    /** Whether the node at {@code base} answers any HTTP request (even with an error status). */
    boolean answers(URI base) {
        try {
            get(base, "/_cluster/health?local=true", Duration.ofSeconds(2));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            return JSON.missingNode();
        }
    }
}
