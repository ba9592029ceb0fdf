package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * docs/installing-the-plugin.md, run: its Dockerfile ({@code testenv/src/docker/plugin/Dockerfile}, {@code FROM} the
 * official image) built and run with the build's image as its base through its build argument (no official image can
 * be pulled where esrel is built); its ECK manifest's init container ({@code testenv/src/docker/eck/elasticsearch.yaml})
 * run as Kubernetes runs it, its command in place of the image's entry point, with the zip's URL pointing at a copy in
 * the container. The page shows both files as they are (tools/Docs.java check).
 */
@Tag("docker")
class InstallingThePluginIT {

    private static final Path DOCKERFILE = Path.of("src/docker/plugin/Dockerfile");
    private static final Path ECK = Path.of("src/docker/eck/elasticsearch.yaml");

    @Test
    void shouldBuildAnImageWhoseNodesRunThePlugin() throws Exception {
        DockerImageName base = DockerImagesForTests.base();
        String version = PluginImage.version(base);
        String built = new ImageFromDockerfile("esrel/readme-dockerfile:" + version, true)
                // The Dockerfile and the zip only (withDockerfile would send the Dockerfile's whole directory tree).
                .withFileFromPath("Dockerfile", DOCKERFILE)
                .withFileFromPath("esrel-plugin.zip", Artifacts.pluginZip(version))
                .withBuildArg("ES_IMAGE", base.asCanonicalNameString())
                .withBuildImageCmdModifier(cmd -> cmd.withLabels(Map.of(PluginImage.LABEL, "readme-dockerfile")))
                .get();
        try (ElasticsearchContainer es = new ElasticsearchContainer(DockerImageName.parse(built)
                        .asCompatibleSubstituteFor(EsrelElasticsearchContainer.OFFICIAL_IMAGE))
                .withEnv("xpack.security.enabled", "false")
                .withEnv("ES_JAVA_OPTS", "-Xms512m -Xmx512m")
                .withLabel(PluginImage.LABEL, "readme-dockerfile")
                .withStartupTimeout(Duration.ofMinutes(5))
                .withCertPath("")) {
            es.start();
            URI uri = URI.create("http://" + es.getHttpHostAddress());
            EsHttp http = new EsHttp(Map.of());
            // Testcontainers' container waits for the node's "started" log line only, which a starved machine's node
            // logs before it has its cluster state; until then _cat/plugins lists no node's plugins. Wait as
            // EsrelElasticsearchContainer does.
            assertThat(http.get(uri, "/_cluster/health?wait_for_status=yellow&timeout=120s", Duration.ofSeconds(150))
                            .status())
                    .as("the node's cluster health, yellow within 120 s")
                    .isEqualTo(200);
            EsHttp.Response plugins = http.get(uri, "/_cat/plugins?format=json", Duration.ofSeconds(30));
            assertThat(plugins.body().findValuesAsText("component")).contains("esrel");
        }
    }

    @Test
    void shouldInstallThePluginAsTheEckManifestsInitContainerDoes() throws Exception {
        String manifest = Files.readString(ECK, StandardCharsets.UTF_8);
        Matcher version = Pattern.compile("(?m)^  version: (\\S+)$").matcher(manifest);
        assertThat(version.find()).as("spec.version in %s", ECK).isTrue();
        assertThat(version.group(1))
                .as("the manifest's version is the build's")
                .isEqualTo(TestenvProperties.esVersion());
        Matcher command =
                Pattern.compile("(?m)^\\s+command: \\['sh', '-c', '(.+)'\\]$").matcher(manifest);
        assertThat(command.find()).as("the init container's command in %s", ECK).isTrue();
        String install = command.group(1).replaceFirst("https://\\S+\\.zip", "file:///tmp/esrel-plugin.zip");
        assertThat(install).isEqualTo("bin/elasticsearch-plugin install --batch file:///tmp/esrel-plugin.zip");

        DockerImageName base = DockerImagesForTests.base();
        try (GenericContainer<?> init = new GenericContainer<>(base)
                .withCopyFileToContainer(
                        MountableFile.forHostPath(Artifacts.pluginZip(PluginImage.version(base)), 0644),
                        "/tmp/esrel-plugin.zip")
                // Kubernetes runs a container's command in place of the image's entry point.
                .withCreateContainerCmdModifier(
                        cmd -> cmd.withEntrypoint("sh", "-c", install + " && bin/elasticsearch-plugin list"))
                .withLabel(PluginImage.LABEL, "eck-init-container")
                .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofMinutes(5)))) {
            init.start();
            assertThat(init.getLogs()).contains("esrel");
        }
    }
}
