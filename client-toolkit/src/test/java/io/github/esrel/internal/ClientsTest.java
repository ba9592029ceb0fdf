package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.json.SimpleJsonpMapper;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.DefaultTransportOptions;
import co.elastic.clients.transport.ElasticsearchTransport;
import co.elastic.clients.transport.Endpoint;
import co.elastic.clients.transport.TransportOptions;
import co.elastic.clients.transport.Version;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.Test;

class ClientsTest {

    private static final int MAJOR = ClientApi.CLIENT_MAJOR;
    private static final int MINOR = ClientApi.MIN_CLIENT[1];

    @Test
    void shouldAcceptTheOldestSupportedClientAndNewerOnesOfTheLine() {
        assertThat(Clients.clientVersionProblem(new Version(MAJOR, MINOR, 0, false)))
                .isNull();
        assertThat(Clients.clientVersionProblem(new Version(MAJOR, MINOR + 7, 3, false)))
                .isNull();
        assertThat(Clients.clientVersionProblem(null)).isNull();
    }

    @Test
    void shouldRefuseAnOlderClientNamingTheMinimumAndBootsProperty() {
        assumeTrue(MINOR > 0, "the first minor of its major is the minimum of this line");
        String problem = Clients.clientVersionProblem(new Version(MAJOR, MINOR - 1, 4, false));
        assertThat(problem)
                .contains(ClientApi.ARTIFACT)
                .contains("needs elasticsearch-java " + MAJOR + "." + MINOR)
                .contains(MAJOR + "." + (MINOR - 1) + ".4 is on the class path")
                .contains("elasticsearch-client.version");
    }

    @Test
    void shouldRefuseTheOtherLineNamingItsArtifact() {
        int other = MAJOR == 9 ? 8 : 9;
        String problem = Clients.clientVersionProblem(new Version(other, 18, 8, false));
        assertThat(problem)
                .contains("for elasticsearch-java " + other + ".x use io.github.esrel:" + ClientApi.OTHER_ARTIFACT);
    }

    /** With -Desrel.test.client=V (the client-under-test profile), the tests really run on V. */
    @Test
    void shouldRunOnTheClientThisBuildIsTestedWith() {
        String wanted = System.getProperty("esrel.test.client");
        if (wanted != null && !wanted.isBlank()) {
            assertThat(Version.VERSION).hasToString(wanted);
        }
        assertThat(Clients.clientVersionProblem(Version.VERSION)).isNull();
    }

    // The clients below point nowhere: adopting one sends GET /, refused at once, which decides nothing.

    @Test
    void shouldSendEsrelsJsonWithItsOwnMapperOverTheApplicationsHttpClient() throws Exception {
        try (RestClient rest = RestClient.builder(new HttpHost("127.0.0.1", 9)).build()) {
            JsonpMapper applicationMapper = new JacksonJsonpMapper();
            ElasticsearchClient app = new ElasticsearchClient(new RestClientTransport(rest, applicationMapper));
            ElasticsearchClient esrel = Clients.internal(app);
            assertThat(esrel._jsonpMapper())
                    .isInstanceOf(JacksonJsonpMapper.class)
                    .isNotSameAs(applicationMapper);
            // writes are never resent, and the legacy transport's errors are decoded as for the application's client
            assertThat(esrel._transport()).isInstanceOf(ResendGuard.class);
            ElasticsearchTransport guarded = ((ResendGuard) esrel._transport()).delegate();
            assertThat(guarded).isInstanceOf(StatusNormalizingTransport.class);
            assertThat(((StatusNormalizingTransport) guarded).delegate()).isInstanceOf(EsrelTransport.class);
            assertThat(Clients.internal(esrel)).isSameAs(esrel);
            esrel._transport().close();
            assertThat(rest.isRunning())
                    .as("the application's HTTP client stays open")
                    .isTrue();
        }
    }

    @Test
    void shouldKeepTheApplicationsRequestOptions() throws Exception {
        try (RestClient rest = RestClient.builder(new HttpHost("127.0.0.1", 9)).build()) {
            ElasticsearchClient app = new ElasticsearchClient(new RestClientTransport(rest, new SimpleJsonpMapper()))
                    .withTransportOptions(o -> o.addHeader("X-Tenant", "t1"));
            ElasticsearchClient esrel = Clients.internal(app);
            assertThat(esrel._transportOptions().headers()).contains(Map.entry("X-Tenant", "t1"));
            assertThat(esrel._transport().options().headers())
                    .containsExactlyInAnyOrderElementsOf(
                            app._transport().options().headers());
        }
    }

    @Test
    void shouldUseAnOwnTransportAsItIsWhenItsMapperIsJacksons() {
        ElasticsearchClient jackson = new ElasticsearchClient(new OwnTransport(new JacksonJsonpMapper()));
        ElasticsearchTransport used = Clients.internal(jackson)._transport();
        assertThat(used).isInstanceOf(ResendGuard.class);
        assertThat(((ResendGuard) used).delegate()).isSameAs(jackson._transport());
        ElasticsearchClient simple = new ElasticsearchClient(new OwnTransport(new SimpleJsonpMapper()));
        assertThatThrownBy(() -> Clients.internal(simple))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(OwnTransport.class.getName())
                .hasMessageContaining("SimpleJsonpMapper")
                .hasMessageContaining("JacksonJsonpMapper");
    }

    /** A transport of the application's making, which shows no HTTP client; every request fails to connect. */
    private record OwnTransport(JsonpMapper jsonpMapper) implements ElasticsearchTransport {
        @Override
        public <RequestT, ResponseT, ErrorT> ResponseT performRequest(
                RequestT request, Endpoint<RequestT, ResponseT, ErrorT> endpoint, TransportOptions options)
                throws java.io.IOException {
            throw new java.net.ConnectException("nowhere");
        }

        @Override
        public <RequestT, ResponseT, ErrorT> CompletableFuture<ResponseT> performRequestAsync(
                RequestT request, Endpoint<RequestT, ResponseT, ErrorT> endpoint, TransportOptions options) {
            return CompletableFuture.failedFuture(new java.net.ConnectException("nowhere"));
        }

        @Override
        public TransportOptions options() {
            return DefaultTransportOptions.EMPTY;
        }

        @Override
        public void close() {}
    }
}
