package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.cat.plugins.PluginsRecord;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * {@link EsrelElasticsearchContainer} is Testcontainers' {@link ElasticsearchContainer} with the plugin: with
 * Testcontainers' defaults (security on, {@code changeme}, the CA copied out) and without security, on the image of
 * {@code esrel.testenv.image}; the plugin zip is the Maven artifact of testenv's esrel version.
 */
@Tag("docker")
class EsrelElasticsearchContainerIT {

    @Test
    void shouldRunThePluginWithTestcontainersSecurityDefaults() throws Exception {
        DockerImageName image = DockerImagesForTests.base();
        List<PluginsRecord> plugins;
        // tag::secured-container[]
        try (EsrelElasticsearchContainer elasticsearch = new EsrelElasticsearchContainer(image)) { // security on
            elasticsearch.withEnv("ES_JAVA_OPTS", "-Xms512m -Xmx512m").start();
            ElasticsearchClient es = elasticsearch.createClient(); // HTTPS with its CA, user elastic, 30 s timeouts
            plugins = es.cat().plugins().plugins();
            // hide::begin[]
            assertThat(elasticsearch.getDockerImageName()).startsWith("esrel/elasticsearch-esrel:");
            assertThat(elasticsearch.getEnvMap())
                    .containsEntry("ELASTIC_PASSWORD", ElasticsearchContainer.ELASTICSEARCH_DEFAULT_PASSWORD);
            EsHttp http = new EsHttp(
                    Map.of("Authorization", SecurityFiles.basicAuth("elastic", "changeme")),
                    Optional.of(elasticsearch.createSslContextFromCa()));
            assertEsrelPlugin(http, URI.create("https://" + elasticsearch.getHttpHostAddress()));
            es._transport().close();
            // hide::end[]
        }
        // end::secured-container[]
        assertThat(plugins).extracting(PluginsRecord::component).contains("esrel");
    }

    @Test
    void shouldRunThePluginWithoutSecurity() throws Exception {
        try (EsrelElasticsearchContainer es =
                new EsrelElasticsearchContainer(DockerImagesForTests.base()).withoutSecurity()) {
            es.withEnv("ES_JAVA_OPTS", "-Xms512m -Xmx512m").withStartupTimeout(Duration.ofMinutes(5));
            es.start();
            assertThat(es.caCertAsBytes()).isEmpty();
            assertThat(es.getEnvMap()).doesNotContainKey("ELASTIC_PASSWORD");
            assertEsrelPlugin(new EsHttp(Map.of()), URI.create("http://" + es.getHttpHostAddress()));
        }
    }

    /**
     * Started means ready (the node has a master and its cluster state), then the plugin is installed and answers: the
     * routing calculator for a hypothetical index. Every answer's status is checked before its body is read: an error
     * answer has no plugins in it, and read as a list it would only show as an empty one.
     */
    private static void assertEsrelPlugin(EsHttp http, URI uri) throws Exception {
        EsHttp.Response health = http.get(uri, "/_cluster/health", Duration.ofSeconds(30));
        assertThat(health.ok()).as(health.body().toString()).isTrue();
        assertThat(health.body().path("status").asText()).isIn("yellow", "green");
        EsHttp.Response plugins = http.get(uri, "/_cat/plugins?format=json", Duration.ofSeconds(30));
        assertThat(plugins.ok()).as(plugins.status() + " " + plugins.body()).isTrue();
        assertThat(plugins.body().findValuesAsText("component")).contains("esrel");
        EsHttp.Response index = http.put(
                uri,
                "/orders",
                "{\"settings\":{\"number_of_shards\":5,\"number_of_replicas\":0}}",
                Duration.ofSeconds(30));
        assertThat(index.ok()).as(index.body().toString()).isTrue();
        EsHttp.Response calc =
                http.get(uri, "/orders/_routing_calc?id=order-1&routing=tenant-7", Duration.ofSeconds(30));
        JsonNode body = calc.body();
        assertThat(calc.ok()).as(body.toString()).isTrue();
        assertThat(body.path("number_of_shards").asInt()).isEqualTo(5);
        assertThat(body.path("shard").asInt()).isBetween(0, 4);
    }
}
