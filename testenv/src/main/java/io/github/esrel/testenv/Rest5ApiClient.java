package io.github.esrel.testenv;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Node;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
import co.elastic.clients.transport.rest5_client.low_level.Rest5ClientBuilder;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
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

    static Rest5ApiClient create(List<URI> nodes, Map<String, String> headers, Optional<SSLContext> sslContext) {
        Rest5ClientBuilder builder = Rest5Client.builder(nodes)
                .setDefaultHeaders(headers.entrySet().stream()
                        .map(e -> new BasicHeader(e.getKey(), e.getValue()))
                        .toArray(Header[]::new))
                .setRequestConfigCallback(c -> c.setResponseTimeout(RESPONSE_TIMEOUT));
        sslContext.ifPresent(builder::setSSLContext);
        Rest5Client rest = builder.build();
        return new Rest5ApiClient(
                rest, new ElasticsearchClient(new Rest5ClientTransport(rest, new JacksonJsonpMapper())));
    }

    @Override
    public void setNodes(List<URI> nodes) {
        restClient.setNodes(
                nodes.stream().map(u -> new Node(HttpHost.create(u))).toList());
    }
}
