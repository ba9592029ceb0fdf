package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.images.builder.Transferable;

/**
 * The official Elasticsearch image's contract, as far as Testcontainers, Spring Boot and operators rely on it, checked
 * point by point against an image: the stand-in built here by {@code testenv/standin-images} by default, or any other
 * with {@code -Desrel.testenv.contract.image=docker.elastic.co/elasticsearch/elasticsearch:9.5.3} (unchanged: this
 * class uses nothing of the stand-in's). The container runs with Testcontainers' defaults for an 8+ image: security on,
 * the password through {@code ELASTIC_PASSWORD}, started once Testcontainers' wait strategy has read "started" in the
 * JSON console log.
 */
@Tag("docker")
class StandinContractIT {

    private static final String PASSWORD = "contract-password";
    private static ElasticsearchContainer node;
    private static EsHttp http;

    @BeforeAll
    static void start() {
        node = new ElasticsearchContainer(DockerImagesForTests.contract())
                .withPassword(PASSWORD)
                // Testcontainers waits 60 s by default; a first start makes certificates and a loaded machine is slow.
                .withStartupTimeout(Duration.ofMinutes(5))
                .withLabel(PluginImage.LABEL, "contract")
                .withEnv("ES_JAVA_OPTS", "-Xms512m -Xmx512m")
                // Environment variables to settings: a dotted name as it is, and ES_SETTING_* (_ to ., __ to _).
                .withEnv("cluster.name", "contract-dotted")
                .withEnv("ES_SETTING_NODE_ATTR_CONTRACT__CHECK", "from-es-setting");
        node.start();
        http = new EsHttp(
                Map.of("Authorization", SecurityFiles.basicAuth("elastic", PASSWORD)),
                Optional.of(node.createSslContextFromCa()));
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.stop();
        }
    }

    @Test
    void shouldRunAsUid1000FromUsrShareElasticsearch() throws Exception {
        assertThat(exec("id", "-u")).isEqualTo("1000");
        assertThat(exec("pwd")).isEqualTo("/usr/share/elasticsearch");
        assertThat(exec("sh", "-c", "test -x /usr/share/elasticsearch/bin/elasticsearch && echo present"))
                .isEqualTo("present");
    }

    @Test
    void shouldTurnEnvironmentVariablesIntoSettings() throws Exception {
        JsonNode settings =
                get("/_nodes/_local/settings").path("nodes").elements().next().path("settings");
        assertThat(settings.path("cluster").path("name").asText()).isEqualTo("contract-dotted");
        assertThat(settings.path("node").path("attr").path("contract_check").asText())
                .isEqualTo("from-es-setting");
        // Testcontainers' own: one node, no disk watermarks.
        assertThat(settings.path("discovery").path("type").asText()).isEqualTo("single-node");
    }

    @Test
    void shouldAuthenticateTheElasticUserWithElasticPassword() throws Exception {
        assertThat(get("/_security/_authenticate").path("username").asText()).isEqualTo("elastic");
        EsHttp wrong = new EsHttp(
                Map.of("Authorization", SecurityFiles.basicAuth("elastic", "not-" + PASSWORD)),
                Optional.of(node.createSslContextFromCa()));
        assertThat(wrong.get(uri(), "/", Duration.ofSeconds(10)).status()).isEqualTo(401);
    }

    @Test
    void shouldServeHttpsSignedByTheCaInConfigCertsHttpCaCrt() throws Exception {
        assertThat(node.caCertAsBytes()).isPresent();
        assertThat(new String(node.caCertAsBytes().orElseThrow())).startsWith("-----BEGIN CERTIFICATE-----");
        assertThat(get("/_cluster/health").path("status").asText()).isIn("green", "yellow");
        // Plain HTTP is refused: security is on by default.
        EsHttp plain = new EsHttp(Map.of());
        assertThatThrownBy(
                        () -> plain.get(URI.create("http://" + node.getHttpHostAddress()), "/", Duration.ofSeconds(10)))
                .isInstanceOf(java.io.IOException.class);
    }

    @Test
    void shouldLogEcsJsonToTheConsole() throws Exception {
        ObjectMapper json = new ObjectMapper();
        String started = node.getLogs()
                .lines()
                .filter(l -> l.contains("\"message\":\"started"))
                .findFirst()
                .orElseThrow();
        JsonNode line = json.readTree(started);
        assertThat(line.path("message").asText()).startsWith("started");
        assertThat(line.path("log.level").asText()).isEqualTo("INFO");
        assertThat(line.path("ecs.version").asText()).isNotEmpty();
    }

    @Test
    void shouldExposeTheHttpAndTransportPorts() {
        var config = node.getDockerClient()
                .inspectImageCmd(node.getDockerImageName())
                .exec()
                .getConfig();
        assertThat(config.getExposedPorts()).extracting(Object::toString).contains("9200/tcp", "9300/tcp");
        assertThat(config.getEnv()).contains("ELASTIC_CONTAINER=true");
    }

    @Test
    void shouldInstallAPluginWithElasticsearchPlugin() throws Exception {
        String version = PluginImage.version(DockerImagesForTests.contract());
        byte[] zip = java.nio.file.Files.readAllBytes(Artifacts.pluginZip(version));
        node.copyFileToContainer(Transferable.of(zip, 0644), "/tmp/esrel-plugin.zip");
        ExecResult install =
                node.execInContainer("bin/elasticsearch-plugin", "install", "--batch", "file:///tmp/esrel-plugin.zip");
        assertThat(install.getExitCode())
                .as(install.getStdout() + install.getStderr())
                .isZero();
        assertThat(exec("bin/elasticsearch-plugin", "list")).contains("esrel");
    }

    private static String exec(String... command) throws Exception {
        ExecResult result = node.execInContainer(command);
        assertThat(result.getExitCode())
                .as(String.join(" ", command) + ": " + result.getStderr())
                .isZero();
        return result.getStdout().strip();
    }

    private static URI uri() {
        return URI.create("https://" + node.getHttpHostAddress());
    }

    private static JsonNode get(String path) throws Exception {
        EsHttp.Response response = http.get(uri(), path, Duration.ofSeconds(30));
        assertThat(response.ok()).as(path + ": " + response.body()).isTrue();
        return response.body();
    }
}
