package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.DockerImageName;

/**
 * The README's Dockerfile (installing the plugin into your own image, {@code FROM} the official one) is {@code
 * testenv/src/docker/plugin/Dockerfile}, built and run here with the build's image as its base through its build
 * argument (no official image can be pulled where esrel is built), and the README shows that file as it is.
 */
@Tag("docker")
class ReadmeDockerfileIT {

    private static final Path DOCKERFILE = Path.of("src/docker/plugin/Dockerfile");

    @Test
    void shouldShowTheDockerfileAsItIs() throws Exception {
        String readme = Files.readString(Path.of("../README.md"), StandardCharsets.UTF_8);
        assertThat(readme).contains("```dockerfile\n" + Files.readString(DOCKERFILE, StandardCharsets.UTF_8) + "```");
    }

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
            EsHttp.Response plugins = new EsHttp(Map.of())
                    .get(
                            URI.create("http://" + es.getHttpHostAddress()),
                            "/_cat/plugins?format=json",
                            Duration.ofSeconds(30));
            assertThat(plugins.body().findValuesAsText("component")).contains("esrel");
        }
    }
}
