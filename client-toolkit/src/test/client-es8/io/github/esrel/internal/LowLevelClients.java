package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import org.apache.http.Header;
import org.apache.http.HttpHost;
import org.apache.http.message.BasicHeader;
import org.elasticsearch.client.RestClient;
import org.jspecify.annotations.Nullable;

/**
 * Applications' clients of several hosts, on each low-level client of this client line (8.x: {@code RestClient}):
 * what a production client built from {@code spring.elasticsearch.uris} or {@code RestClient.builder(h1, h2, h3)}
 * looks like.
 */
public final class LowLevelClients {

    private LowLevelClients() {}

    /** The low-level clients of this line. */
    public static List<String> names() {
        return List.of("RestClient");
    }

    /** An application's client of {@code hosts}, in that order, on the low-level client {@code name}. */
    public static Hosts open(String name, List<URI> hosts, Map<String, String> headers) {
        return open(name, hosts, headers, null);
    }

    /**
     * {@link #open(String, List, Map)}, with the low-level client's I/O threads made by {@code ioThreads} ({@code
     * null}: the client's own).
     */
    public static Hosts open(
            String name, List<URI> hosts, Map<String, String> headers, @Nullable ThreadFactory ioThreads) {
        if (!name.equals("RestClient")) {
            throw new IllegalArgumentException("no low-level client [" + name + "] on this line: " + names());
        }
        RestClient rest = RestClient.builder(hosts.stream()
                        .map(u -> new HttpHost(u.getHost(), u.getPort(), u.getScheme()))
                        .toArray(HttpHost[]::new))
                .setDefaultHeaders(headers.entrySet().stream()
                        .map(h -> new BasicHeader(h.getKey(), h.getValue()))
                        .toArray(Header[]::new))
                .setHttpClientConfigCallback(http -> ioThreads == null ? http : http.setThreadFactory(ioThreads))
                .build();
        return new Hosts(new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper())), rest);
    }

    /** A client and the low-level client under it, closed together. */
    public record Hosts(ElasticsearchClient client, RestClient lowLevel) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            lowLevel.close();
        }
    }
}
