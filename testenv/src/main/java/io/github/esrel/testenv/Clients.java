package io.github.esrel.testenv;

import static java.util.Objects.requireNonNull;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.apache.http.Header;
import org.apache.http.HttpHost;
import org.apache.http.message.BasicHeader;
import org.elasticsearch.client.Node;
import org.elasticsearch.client.RestClient;

/**
 * Elasticsearch clients for given node addresses, for test code that runs outside an {@link
 * EsCluster} (a child JVM that is killed halfway, say) or needs a second client.
 *
 * <p>testenv works with whichever line of {@code elasticsearch-java} the tests put on the class
 * path: with 9.x the client sits on {@code Rest5ClientTransport}, the transport applications use
 * by default; with 8.x on {@code RestClientTransport}, the only transport of that line. An 8.x
 * client talks to 8.19 and 9.x nodes, a 9.x client to 9.x nodes.
 */
public final class Clients {

    private static final boolean REST5 = present("co.elastic.clients.transport.rest5_client.Rest5ClientTransport");

    private Clients() {}

    /**
     * A Java API client (Jackson mapper) spread over {@code nodes}. Closing its transport ({@code
     * client._transport().close()}) closes its connections.
     *
     * @param nodes the HTTP addresses of the nodes, such as {@code http://127.0.0.1:9200}
     * @return a new client; the caller closes it
     * @throws IllegalArgumentException if {@code nodes} is empty
     */
    public static ElasticsearchClient connect(List<URI> nodes) {
        return connect(nodes, Map.of());
    }

    /**
     * A Java API client (Jackson mapper) spread over {@code nodes}, sending {@code headers} (such as
     * {@code Authorization}) with every request.
     *
     * @param nodes the HTTP addresses of the nodes, such as {@code http://127.0.0.1:9200}
     * @param headers header names and values to send with every request; may be empty
     * @return a new client; the caller closes it
     * @throws IllegalArgumentException if {@code nodes} is empty
     */
    public static ElasticsearchClient connect(List<URI> nodes, Map<String, String> headers) {
        return apiClient(nodes, headers, Optional.empty()).client();
    }

    /**
     * A Java API client (Jackson mapper) spread over {@code nodes} that serve HTTPS with a
     * certificate signed by a private CA (a secured cluster's {@link EsCluster#caCertificate()}).
     *
     * @param nodes the nodes' addresses, {@code https://...}
     * @param headers headers sent with every request, such as {@code Authorization}
     * @param sslContext trusts the nodes' certificates
     * @return a new client; closing its transport closes its connections
     * @throws IllegalArgumentException if {@code nodes} is empty
     */
    public static ElasticsearchClient connect(List<URI> nodes, Map<String, String> headers, SSLContext sslContext) {
        return apiClient(nodes, headers, Optional.of(sslContext)).client();
    }

    /** The Java API client of this class path's client line, with a way to move it to new nodes. */
    static ApiClient apiClient(List<URI> nodes, Map<String, String> headers, Optional<SSLContext> sslContext) {
        return apiClient(nodes, headers, sslContext, Optional.empty());
    }

    /**
     * As {@link #apiClient(List, Map, Optional)}, connecting within {@code connectTimeout} instead of the low-level
     * client's default (1 s on both lines), which also bounds the TLS handshake.
     */
    static ApiClient apiClient(
            List<URI> nodes,
            Map<String, String> headers,
            Optional<SSLContext> sslContext,
            Optional<Duration> connectTimeout) {
        checkNodes(nodes, headers);
        return REST5
                ? Rest5ApiClient.create(nodes, headers, sslContext, connectTimeout)
                : new LegacyApiClient(restClient(nodes, headers, sslContext, connectTimeout));
    }

    /** A low-level client spread over {@code nodes}, sending {@code headers} with every request. */
    static RestClient restClient(List<URI> nodes, Map<String, String> headers, Optional<SSLContext> sslContext) {
        return restClient(nodes, headers, sslContext, Optional.empty());
    }

    private static RestClient restClient(
            List<URI> nodes,
            Map<String, String> headers,
            Optional<SSLContext> sslContext,
            Optional<Duration> connectTimeout) {
        checkNodes(nodes, headers);
        return RestClient.builder(hosts(nodes))
                .setDefaultHeaders(headers.entrySet().stream()
                        .map(e -> new BasicHeader(e.getKey(), e.getValue()))
                        .toArray(Header[]::new))
                .setHttpClientConfigCallback(
                        http -> sslContext.isPresent() ? http.setSSLContext(sslContext.get()) : http)
                .setRequestConfigCallback(request -> connectTimeout.isPresent()
                        ? request.setConnectTimeout((int) connectTimeout.get().toMillis())
                        : request)
                .build();
    }

    /** Points {@code restClient} at {@code nodes}. */
    static void setNodes(RestClient restClient, List<URI> nodes) {
        restClient.setNodes(Arrays.stream(hosts(nodes)).map(Node::new).toList());
    }

    private static HttpHost[] hosts(List<URI> nodes) {
        return nodes.stream()
                .map(u -> new HttpHost(u.getHost(), u.getPort(), u.getScheme()))
                .toArray(HttpHost[]::new);
    }

    private static void checkNodes(List<URI> nodes, Map<String, String> headers) {
        requireNonNull(nodes, "nodes cannot be null");
        requireNonNull(headers, "headers cannot be null");
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("nodes cannot be empty");
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, Clients.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** A Java API client with the low-level client under it. */
    interface ApiClient {
        ElasticsearchClient client();

        /** Points the client at {@code nodes} (a restarted node may come back on other ports). */
        void setNodes(List<URI> nodes);

        default void close() throws IOException {
            client()._transport().close();
        }
    }

    /** On {@code RestClientTransport}: the 8.x line's transport, also in 9.x. */
    private record LegacyApiClient(RestClient restClient, ElasticsearchClient client) implements ApiClient {
        LegacyApiClient(RestClient restClient) {
            this(restClient, new ElasticsearchClient(new RestClientTransport(restClient, new JacksonJsonpMapper())));
        }

        @Override
        public void setNodes(List<URI> nodes) {
            Clients.setNodes(restClient, nodes);
        }
    }
}
