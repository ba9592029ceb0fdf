package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
import co.elastic.clients.transport.rest5_client.low_level.Rest5ClientBuilder;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.http.message.BasicHeader;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.jspecify.annotations.Nullable;

/**
 * Applications' clients of several hosts, on each low-level client of this client line (9.x: {@code Rest5Client},
 * the default, and the legacy {@code RestClient}): what a production client built from {@code
 * spring.elasticsearch.uris} or {@code Rest5Client.builder(h1, h2, h3)} looks like.
 */
public final class LowLevelClients {

    private LowLevelClients() {}

    /** The low-level clients of this line. */
    public static List<String> names() {
        return List.of("Rest5Client", "RestClient");
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
        switch (name) {
            case "Rest5Client": {
                Rest5ClientBuilder builder = Rest5Client.builder(hosts)
                        .setDefaultHeaders(headers.entrySet().stream()
                                .map(h -> new BasicHeader(h.getKey(), h.getValue()))
                                .toArray(org.apache.hc.core5.http.Header[]::new));
                if (ioThreads != null) {
                    // The builder of elasticsearch-java 9.0 has no config callback: the HTTP client whole.
                    builder.setHttpClient(HttpAsyncClients.custom()
                            .setThreadFactory(ioThreads)
                            .build());
                }
                Rest5Client rest = builder.build();
                return new Hosts(
                        new ElasticsearchClient(new Rest5ClientTransport(rest, new JacksonJsonpMapper())), rest);
            }
            case "RestClient": {
                RestClient rest = RestClient.builder(hosts.stream()
                                .map(u -> new HttpHost(u.getHost(), u.getPort(), u.getScheme()))
                                .toArray(HttpHost[]::new))
                        .setDefaultHeaders(headers.entrySet().stream()
                                .map(h -> new org.apache.http.message.BasicHeader(h.getKey(), h.getValue()))
                                .toArray(org.apache.http.Header[]::new))
                        .setHttpClientConfigCallback(
                                http -> ioThreads == null ? http : http.setThreadFactory(ioThreads))
                        .build();
                return new Hosts(
                        new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper())), rest);
            }
            default:
                throw new IllegalArgumentException("no low-level client [" + name + "] on this line: " + names());
        }
    }

    /** A client and the low-level client under it, closed together. */
    public record Hosts(ElasticsearchClient client, AutoCloseable lowLevel) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try {
                lowLevel.close();
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
    }
}
