package io.github.esrel.testenv;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.DockerImageName;

/**
 * One node in the official Elasticsearch image through Testcontainers, with the plugin baked into
 * a derived image. Not verified on the machine this was written on (it has no Docker). Runs a
 * single node and offers no node control: a restarted container may get new host ports.
 */
final class DockerBackend implements ClusterBackend {

  private static final String IMAGE = "docker.elastic.co/elasticsearch/elasticsearch";

  private final ClusterSpec spec;
  private ElasticsearchContainer container;

  DockerBackend(ClusterSpec spec) {
    this.spec = spec;
  }

  /** Whether Testcontainers can reach a Docker daemon; false if Testcontainers is missing. */
  static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (LinkageError e) {
      return false;
    }
  }

  @Override
  public String name() {
    return "docker";
  }

  @Override
  public void start() {
    if (spec.nodes() != 1) {
      throw new EsClusterException(
          "the docker backend runs single-node clusters, " + spec.nodes() + " nodes were asked"
              + " for; use -D" + TestenvProperties.BACKEND + "=local");
    }
    DockerImageName image =
        spec.plugin()
            ? imageWithPlugin(Artifacts.pluginZip(spec.version()))
            : DockerImageName.parse(IMAGE + ":" + spec.version());
    ElasticsearchContainer node =
        new ElasticsearchContainer(image)
            .withEnv("xpack.security.enabled", "false")
            .withEnv("action.destructive_requires_name", "false")
            .withEnv("ES_JAVA_OPTS", "-Xms" + spec.heap() + " -Xmx" + spec.heap())
            // With security off there is no CA certificate to copy out after start.
            .withCertPath("")
            .withStartupTimeout(spec.startTimeout());
    // The image turns environment variables with dots in their name into settings.
    spec.settings().forEach(node::withEnv);
    container = node;
    node.start();
    ClusterHealth.await(new EsHttp(Map.of()), httpUris(), "green", 1, spec.startTimeout(), () -> {})
        .ifPresent(
            failure -> {
              throw new EsClusterException(
                  "container " + node.getContainerName() + ": " + failure + "\n"
                      + LogTail.lastLines(node.getLogs(), 60));
            });
  }

  /**
   * The official image plus the plugin, tagged by version and plugin checksum and kept, so Docker
   * reuses its build cache for an unchanged plugin.
   */
  private DockerImageName imageWithPlugin(Path pluginZip) {
    String base = IMAGE + ":" + spec.version();
    String tag = "esrel/elasticsearch:" + spec.version() + "-esrel-" + DistributionCache.sha256(pluginZip);
    ImageFromDockerfile image =
        new ImageFromDockerfile(tag, false)
            .withFileFromPath("esrel-plugin.zip", pluginZip)
            .withDockerfileFromBuilder(
                dockerfile ->
                    dockerfile
                        .from(base)
                        .copy("esrel-plugin.zip", "/tmp/esrel-plugin.zip")
                        .run("bin/elasticsearch-plugin install --batch file:///tmp/esrel-plugin.zip")
                        .build());
    return DockerImageName.parse(image.get()).asCompatibleSubstituteFor(IMAGE);
  }

  @Override
  public List<URI> httpUris() {
    return List.of(URI.create("http://" + container.getHttpHostAddress()));
  }

  @Override
  public String version() {
    return spec.version();
  }

  @Override
  public int size() {
    return 1;
  }

  @Override
  public boolean pluginInstalled() {
    return spec.plugin();
  }

  @Override
  public void close() {
    if (container != null) {
      container.stop();
      container = null;
    }
  }
}
