package io.github.esrel.security;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.TransportUtils;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;
import co.elastic.clients.transport.rest5_client.low_level.Rest5Client;
import io.github.esrel.occ.Occ;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.message.BasicHeader;
import org.apache.hc.core5.util.Timeout;
import org.junit.jupiter.api.Test;

/**
 * docs/getting-started.md: the client an application builds for a secured cluster (HTTPS with its own CA, a user, the
 * timeouts), on elasticsearch-java 9.x, against a secured node (the one LeastPrivilegesIT shares), with esrel on it.
 */
@EsrelTest
class ConnectingIT {

    @Cluster
    static final EsCluster cluster =
            EsCluster.builder().security(LeastPrivilegesIT.security()).shared().build();

    record Counter(long value) {}

    @Test
    void shouldConnectOverHttpsWithTheTimeoutsOfTheGuide() throws IOException {
        ElasticsearchClient es = connect(
                cluster.httpUri().toString(),
                cluster.caCertificate().orElseThrow(),
                "everything",
                LeastPrivilegesIT.PASSWORD);
        try {
            Occ occ = Occ.of(b -> b.client(es));
            occ.upsert("connecting", "c", Counter.class, () -> new Counter(0), c -> new Counter(c.value() + 1));
            assertThat(occ.get("connecting", "c", Counter.class)
                            .orElseThrow()
                            .value()
                            .value())
                    .isEqualTo(1);
        } finally {
            es._transport().close();
        }
    }

    static ElasticsearchClient connect(String url, Path caCertificate, String user, String password)
            throws IOException {
        // tag::client[]
        SSLContext ca = TransportUtils.sslContextFromHttpCaCrt(caCertificate.toFile()); // the cluster's http_ca.crt
        CloseableHttpAsyncClient http = HttpAsyncClients.custom()
                .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setTlsStrategy(new DefaultClientTlsStrategy(ca))
                        .setMaxConnPerRoute(10) // Rest5Client's own pool
                        .setMaxConnTotal(30)
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                // Rest5Client's default, 1 s, also bounds the TLS handshake: too short for a busy node
                                .setConnectTimeout(Timeout.ofSeconds(30))
                                .build())
                        .build())
                .setDefaultRequestConfig(RequestConfig.custom()
                        // Rest5Client's default is none: a frozen node would hold every request sent to it
                        .setResponseTimeout(Timeout.ofSeconds(30))
                        .build())
                .build();
        String basic = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        Rest5Client rest = Rest5Client.builder(URI.create(url))
                .setHttpClient(http)
                .setDefaultHeaders(new Header[] {new BasicHeader("Authorization", "Basic " + basic)})
                .build();
        ElasticsearchClient es = new ElasticsearchClient(new Rest5ClientTransport(rest, new JacksonJsonpMapper()));
        // end::client[]
        return es;
    }
}
