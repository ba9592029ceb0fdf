package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.Refresh;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A cluster with security on: file-realm users and roles, HTTPS with testenv's own CA. */
@EsrelTest
class SecuredClusterIT {

    // tag::security[]
    @Cluster
    static final EsCluster cluster = EsCluster.builder()
            .plugin(false)
            .security(Security.of(
                    s -> s.role("a_reader", "{\"indices\": [{\"names\": [\"a\"], \"privileges\": [\"read\"]}]}")
                            .user("reader", "reader-password", "a_reader")))
            .build();
    // end::security[]

    @Test
    void shouldServeHttpsWithACertificateOfTestenvsCa() throws Exception {
        URI uri = cluster.httpUri();
        assertThat(uri.getScheme()).isEqualTo("https");
        assertThat(Files.readString(cluster.caCertificate().orElseThrow())).startsWith("-----BEGIN CERTIFICATE-----");
        // Without the CA, the JVM does not trust the node.
        HttpClient untrusting = HttpClient.newHttpClient();
        assertThatThrownBy(() ->
                        untrusting.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()))
                .hasRootCauseInstanceOf(java.security.cert.CertPathBuilderException.class);
    }

    @Test
    void shouldAuthorizeEachUserByItsRoles() throws Exception {
        ElasticsearchClient admin = cluster.client();
        admin.index(i -> i.index("a").id("1").document(Map.of("n", 1)).refresh(Refresh.True));
        admin.index(i -> i.index("b").id("1").document(Map.of("n", 2)).refresh(Refresh.True));

        ElasticsearchClient reader = cluster.clientAs("reader");
        assertThat(reader.get(g -> g.index("a").id("1"), Map.class).found()).isTrue();
        assertThatThrownBy(() -> reader.get(g -> g.index("b").id("1"), Map.class))
                .isInstanceOfSatisfying(ElasticsearchException.class, e -> {
                    assertThat(e.status()).isEqualTo(403);
                    assertThat(e.getMessage()).contains("unauthorized for user [reader]");
                });
        assertThatThrownBy(() -> reader.index(i -> i.index("a").id("2").document(Map.of("n", 3))))
                .isInstanceOfSatisfying(
                        ElasticsearchException.class,
                        e -> assertThat(e.status()).isEqualTo(403));
    }

    @Test
    void shouldRefuseUnknownUsersAndWrongPasswords() {
        ElasticsearchClient stranger = Clients.connect(
                cluster.httpUris(),
                Map.of("Authorization", SecurityFiles.basicAuth("reader", "wrong-password")),
                Tls.trusting(cluster.caCertificate().orElseThrow()));
        assertThatThrownBy(() -> stranger.cluster().health())
                .isInstanceOfSatisfying(
                        ElasticsearchException.class,
                        e -> assertThat(e.status()).isEqualTo(401));
        assertThatThrownBy(() -> cluster.clientAs("nobody")).isInstanceOf(IllegalArgumentException.class);
        assertThat(cluster.requestHeaders()).containsKey("Authorization");
        assertThat(List.of(cluster.httpUri().getHost())).containsExactly("127.0.0.1");
    }
}
