package io.github.esrel.testenv;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Node;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
import co.elastic.clients.transport.rest5_client.low_level.Rest5ClientBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.message.BasicHeader;
import org.apache.hc.core5.util.Timeout;

/**
 * The Java API client on {@code Rest5ClientTransport}, the default transport of {@code
 * elasticsearch-java} 9.x. Loaded only when the class path has that line ({@link Clients} checks).
 *
 * <p>Requests time out after {@link #RESPONSE_TIMEOUT} without an answer, as with the 8.x low-level
 * client's socket timeout. {@code Rest5Client} waits forever by default: a frozen node (SIGSTOP, a long GC
 * pause) keeps its sockets open and answers nothing, so every request the client had sent it would hang
 * until the node is thawed. With the timeout the request fails over to the next node, which marks the
 * frozen one dead for a while, as production clients should be configured.
 */
record Rest5ApiClient(Rest5Client restClient, ElasticsearchClient client) implements Clients.ApiClient {

    static final Timeout RESPONSE_TIMEOUT = Timeout.ofSeconds(30);

    static Rest5ApiClient create(
            List<URI> nodes,
            Map<String, String> headers,
            Optional<SSLContext> sslContext,
            Optional<Duration> connectTimeout) {
        // The HTTP client is built here rather than configured through the builder's callbacks: 9.0's builder has
        // none (they came with 9.1), and testenv must run with every 9.x client an application may pin.
        PoolingAsyncClientConnectionManagerBuilder connections = PoolingAsyncClientConnectionManagerBuilder.create()
                .setMaxConnPerRoute(Rest5ClientBuilder.DEFAULT_MAX_CONN_PER_ROUTE)
                .setMaxConnTotal(Rest5ClientBuilder.DEFAULT_MAX_CONN_TOTAL);
        sslContext.ifPresent(ssl -> connections.setTlsStrategy(new DefaultClientTlsStrategy(ssl)));
        connectTimeout.ifPresent(timeout -> connections.setDefaultConnectionConfig(ConnectionConfig.custom()
                .setConnectTimeout(Timeout.ofMilliseconds(timeout.toMillis()))
                .build()));
        CloseableHttpAsyncClient http = HttpAsyncClients.custom()
                .setConnectionManager(connections.build())
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setResponseTimeout(RESPONSE_TIMEOUT)
                        .build())
                .build();
        Rest5Client rest = Rest5Client.builder(nodes)
                .setDefaultHeaders(headers.entrySet().stream()
                        .map(e -> new BasicHeader(e.getKey(), e.getValue()))
                        .toArray(Header[]::new))
                .setHttpClient(http)
                .build();
        return new Rest5ApiClient(
                rest, new ElasticsearchClient(new Rest5ClientTransport(rest, new JacksonJsonpMapper())));
    }

    @Override
    public void setNodes(List<URI> nodes) {
        restClient.setNodes(
                nodes.stream().map(u -> new Node(HttpHost.create(u))).toList());
    }
}
