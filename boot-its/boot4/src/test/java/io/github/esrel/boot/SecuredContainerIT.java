package io.github.esrel.boot;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
import io.github.esrel.doc.DocRef;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.routing.RoutingResult;
import io.github.esrel.testenv.EsrelElasticsearchContainer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.message.BasicHeader;
import org.apache.hc.core5.util.Timeout;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * {@link EsrelElasticsearchContainer} with Testcontainers 2.0's defaults for an 8+ image (what Boot 4 manages):
 * security on, user {@code elastic} with {@code changeme}, HTTPS with the CA Testcontainers copies out of the
 * container; the plugin answers through esrel's routing client. (Testcontainers 1.21 runs the same in testenv's
 * EsrelElasticsearchContainerIT.)
 */
@Tag("docker")
@Testcontainers
class SecuredContainerIT {

    @Container
    static final ElasticsearchContainer elasticsearch = new EsrelElasticsearchContainer(
                    AbstractServiceConnectionIT.image())
            .withEnv("ES_JAVA_OPTS", "-Xms512m -Xmx512m")
            .withStartupTimeout(Duration.ofMinutes(5));

    @Test
    void shouldServeThePluginOverHttpsWithTestcontainersDefaults() throws Exception {
        assertThat(elasticsearch.caCertAsBytes()).isPresent();
        String basic = Base64.getEncoder()
                .encodeToString(("elastic:" + ElasticsearchContainer.ELASTICSEARCH_DEFAULT_PASSWORD)
                        .getBytes(StandardCharsets.UTF_8));
        try (Rest5Client rest = Rest5Client.builder(URI.create("https://" + elasticsearch.getHttpHostAddress()))
                        .setHttpClient(patientHttpsClient(elasticsearch.createSslContextFromCa()))
                        .setDefaultHeaders(new Header[] {new BasicHeader("Authorization", "Basic " + basic)})
                        .build();
                ElasticsearchClient es =
                        new ElasticsearchClient(new Rest5ClientTransport(rest, new JacksonJsonpMapper()))) {
            es.indices()
                    .create(c -> c.index("secured")
                            .settings(s -> s.numberOfShards("3").numberOfReplicas("0")));
            RoutingClient routing = RoutingClient.of(b -> b.client(es));
            RoutingResult result = routing.calculate("secured", List.of(DocRef.id("a"), DocRef.id("b")));
            assertThat(result.computedByServer()).as("the plugin computed it").isTrue();
            assertThat(result.shard(0)).isBetween(0, 2);
        }
    }

    /**
     * The HTTPS client Rest5Client would build, with a 30 s connect timeout instead of its 1 s: the TLS handshake
     * runs within the connect timeout, and a container node's first handshakes on a loaded 2-core machine took longer
     * (this test once failed with "SocketTimeoutException: 1000 MILLISECONDS" while three test lanes ran).
     */
    private static CloseableHttpAsyncClient patientHttpsClient(SSLContext ca) {
        return HttpAsyncClients.custom()
                .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setTlsStrategy(new DefaultClientTlsStrategy(ca))
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(Timeout.ofSeconds(30))
                                .setSocketTimeout(Timeout.ofSeconds(30))
                                .build())
                        .build())
                .build();
    }
}
