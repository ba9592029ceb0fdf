package io.github.esrel.security;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.TransportUtils;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import io.github.esrel.occ.Occ;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import org.apache.http.HttpHost;
import org.apache.http.auth.AuthScope;
import org.apache.http.auth.UsernamePasswordCredentials;
import org.apache.http.impl.client.BasicCredentialsProvider;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.Test;

/**
 * docs/getting-started.md: the client an application builds for a secured cluster (HTTPS with its own CA, a user, the
 * timeouts), on elasticsearch-java 8.x, against a secured node (the one LeastPrivilegesIT shares), with esrel on it.
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
        BasicCredentialsProvider credentials = new BasicCredentialsProvider();
        credentials.setCredentials(AuthScope.ANY, new UsernamePasswordCredentials(user, password));
        RestClient rest = RestClient.builder(HttpHost.create(url))
                .setHttpClientConfigCallback(http -> http.setSSLContext(ca).setDefaultCredentialsProvider(credentials))
                // RestClient's defaults: 1 s to connect (the TLS handshake within it), 30 s for an answer
                .setRequestConfigCallback(
                        request -> request.setConnectTimeout(30_000).setSocketTimeout(30_000))
                .build();
        ElasticsearchClient es = new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
        // end::client[]
        return es;
    }
}
