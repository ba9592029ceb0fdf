package io.github.esrel.testenv;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.DockerImageName;

/**
 * One node in the official Elasticsearch image through Testcontainers, with the plugin baked into a
 * derived image. Not verified on the machine this was written on (it has no Docker). Runs a single
 * node and offers no node control: a restarted container may get new host ports.
 */
final class DockerBackend implements ClusterBackend {

    private static final String IMAGE = "docker.elastic.co/elasticsearch/elasticsearch";

    private final ClusterSpec spec;
    private ElasticsearchContainer container;

    DockerBackend(ClusterSpec spec) {
        this.spec = spec;
    }

    /**
     * Whether Testcontainers can reach a Docker daemon; false if Testcontainers is missing. Asks
     * Testcontainers only when something points at Docker, because without Docker its probe logs an
     * alarming error in every test run.
     */
    static boolean dockerAvailable() {
        if (!dockerConfigured()) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }

    /** The places Testcontainers looks for a Docker daemon (environment, sockets, its config). */
    private static boolean dockerConfigured() {
        if (System.getenv("DOCKER_HOST") != null || System.getenv("TESTCONTAINERS_HOST_OVERRIDE") != null) {
            return true;
        }
        Path home = Path.of(System.getProperty("user.home"));
        List<Path> places = new ArrayList<>(List.of(
                Path.of("/var/run/docker.sock"),
                home.resolve(".testcontainers.properties"),
                home.resolve(".docker/run/docker.sock"),
                home.resolve(".docker/desktop/docker.sock"),
                home.resolve(".colima/default/docker.sock"),
                home.resolve(".rd/docker.sock")));
        Optional.ofNullable(System.getenv("XDG_RUNTIME_DIR")).ifPresent(dir -> places.add(Path.of(dir, "docker.sock")));
        return places.stream().anyMatch(Files::exists);
    }

    @Override
    public String name() {
        return "docker";
    }

    @Override
    public void start() {
        if (spec.security() != null) {
            throw new EsClusterException("the docker backend runs without security; use -D"
                    + TestenvProperties.BACKEND
                    + "=local for a cluster with EsCluster.builder().security(...)");
        }
        if (spec.nodes() != 1) {
            throw new EsClusterException("the docker backend runs single-node clusters, "
                    + spec.nodes()
                    + " nodes were asked"
                    + " for; use -D"
                    + TestenvProperties.BACKEND
                    + "=local");
        }
        if (!dockerAvailable()) {
            throw new EsClusterException(
                    "the docker backend needs Docker and Testcontainers finds none; start Docker, or use -D"
                            + TestenvProperties.BACKEND
                            + "=local (or auto)");
        }
        DockerImageName image = spec.plugin()
                ? imageWithPlugin(Artifacts.pluginZip(spec.version()))
                : DockerImageName.parse(IMAGE + ":" + spec.version());
        ElasticsearchContainer node = new ElasticsearchContainer(image)
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
                .ifPresent(failure -> {
                    throw new EsClusterException("container "
                            + node.getContainerName()
                            + ": "
                            + failure
                            + "\n"
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
        ImageFromDockerfile image = new ImageFromDockerfile(tag, false)
                .withFileFromPath("esrel-plugin.zip", pluginZip)
                .withDockerfileFromBuilder(dockerfile -> dockerfile
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
