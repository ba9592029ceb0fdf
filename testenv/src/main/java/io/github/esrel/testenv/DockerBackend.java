package io.github.esrel.testenv;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Network;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;

/**
 * Runs each node in a container through Testcontainers: an {@link EsrelElasticsearchContainer} (the plugin installed
 * into the image of {@code esrel.testenv.image}, by default the official one), or the image itself for {@code
 * plugin(false)}. Several nodes, security and node control work as on the local backend.
 *
 * <p>Networking ({@link DockerNetworking}): on a Docker network each node has its own address, and Elasticsearch then
 * enforces its bootstrap checks, which need an open-files limit of 65,535; where containers cannot get that (a hard
 * limit below it, as on the machines esrel is built on), the nodes run on the host's network instead, each with its
 * transport on its own loopback address (127.0.0.11, .12, ...) and HTTP on 127.0.0.1, which loopback exempts from the
 * checks. Either way HTTP ports are fixed when the node is created, so a node restarted keeps its address, its name
 * and its data (the container's own file system).
 */
final class DockerBackend implements ClusterBackend {

    private static final Logger LOG = LoggerFactory.getLogger(DockerBackend.class);
    private static final int STOP_GRACE_SECONDS = 15;
    private static final String HOME = "/usr/share/elasticsearch";

    private final ClusterSpec spec;
    private final PortAllocator ports;
    private final String clusterName =
            "esrel-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    private final List<Node> nodes = new ArrayList<>();

    private @Nullable DockerNetworking networking;
    private @Nullable Network network;
    private EsHttp http = new EsHttp(Map.of());
    private Map<String, String> headers = Map.of();
    private Optional<SSLContext> sslContext = Optional.empty();
    private Optional<Path> caCertificate = Optional.empty();

    /** One node: its container, its fixed ports, the settings it was created with. */
    private record Node(ElasticsearchContainer container, NodePorts ports, URI httpUri, Map<String, String> settings) {}

    DockerBackend(ClusterSpec spec) {
        this(spec, PortAllocator.DEFAULT);
    }

    DockerBackend(ClusterSpec spec, PortAllocator ports) {
        this.spec = spec;
        this.ports = ports;
    }

    /** Whether Testcontainers is on the class path and reaches a Docker daemon. */
    static boolean dockerAvailable() {
        return DockerImages.dockerAvailable();
    }

    @Override
    public String name() {
        return "docker";
    }

    /** How the nodes reach each other and the tests reach them, for the log and the README's "which one". */
    String networking() {
        return networking == null ? "not started" : networking.describe();
    }

    @Override
    public synchronized void start() {
        long started = System.nanoTime();
        if (!dockerAvailable()) {
            throw new EsClusterException("the docker backend needs Testcontainers on the test class path"
                    + " (org.testcontainers:elasticsearch, or testcontainers-elasticsearch on 2.x) and a Docker daemon it"
                    + " finds; start Docker, or use -D" + TestenvProperties.BACKEND + "=local (or auto)");
        }
        DockerImageName base = DockerImages.baseImage(spec.version());
        networking = DockerNetworking.choose(spec.nodes());
        if (networking == DockerNetworking.BRIDGE && spec.nodes() > 1) {
            network = Network.builder()
                    .createNetworkCmdModifier(cmd -> cmd.withLabels(Map.of(PluginImage.LABEL, clusterName)))
                    .build();
        }
        Path pluginZip = spec.plugin() ? Artifacts.pluginZip(spec.version()) : null;
        Optional<Path> tls = Optional.empty();
        String adminPassword = SecurityFiles.newAdminPassword();
        if (spec.security() != null) {
            tls = spec.security().tls() ? Optional.of(certificates()) : Optional.empty();
            headers = Map.of("Authorization", SecurityFiles.basicAuth(Security.ADMIN, adminPassword));
            caCertificate = tls.map(dir -> dir.resolve(Tls.CA_CERT));
            sslContext = caCertificate.map(Tls::trusting);
            http = new EsHttp(headers, sslContext);
        }
        Map<String, Transferable> securityFiles =
                spec.security() == null ? Map.of() : securityFiles(adminPassword, tls);
        List<NodePorts> allPorts = IntStream.range(0, spec.nodes())
                .mapToObj(i -> NodePorts.allocate(ports))
                .toList();
        for (int i = 0; i < spec.nodes(); i++) {
            Map<String, String> settings = settings(i, allPorts, tls.isPresent());
            ElasticsearchContainer container = container(base, pluginZip, i, allPorts.get(i), settings);
            securityFiles.forEach((path, file) -> container.withCopyToContainer(file, path));
            String scheme = tls.isPresent() ? "https" : "http";
            nodes.add(new Node(
                    container,
                    allPorts.get(i),
                    URI.create(scheme + "://127.0.0.1:" + allPorts.get(i).http()),
                    settings));
        }
        LOG.info(
                "Starting {}-node Elasticsearch {} cluster {} in Docker ({}; image {}{}{})",
                spec.nodes(),
                spec.version(),
                clusterName,
                networking.describe(),
                base.asCanonicalNameString(),
                pluginZip == null ? ", no plugin" : " + " + pluginZip.getFileName(),
                spec.security() == null ? "" : ", " + spec.security());
        try {
            Startables.deepStart(nodes.stream().map(Node::container).toList())
                    .get(spec.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new EsClusterException(
                    "cluster " + clusterName + " did not start in Docker (" + networking.describe() + "): "
                            + rootCause(e) + logs(),
                    e);
        }
        ClusterHealth.await(http, httpUris(), "green", spec.nodes(), spec.startTimeout(), () -> {})
                .ifPresent(failure -> {
                    throw new EsClusterException("cluster " + clusterName + " did not form: " + failure + logs());
                });
        LOG.info(
                "Cluster {} is green after {} ms: {} ({})",
                clusterName,
                (System.nanoTime() - started) / 1_000_000,
                httpUris(),
                networking.describe());
    }

    private ElasticsearchContainer container(
            DockerImageName base, @Nullable Path pluginZip, int i, NodePorts nodePorts, Map<String, String> settings) {
        ElasticsearchContainer container =
                pluginZip != null ? new EsrelElasticsearchContainer(base, pluginZip) : new ElasticsearchContainer(base);
        // Single-node discovery, the CA copied out after the start: Testcontainers' defaults that testenv sets itself.
        container.getEnvMap().remove("discovery.type");
        container.withCertPath("");
        settings.forEach(container::withEnv);
        container.withEnv("ES_JAVA_OPTS", TestenvProperties.esJavaOpts(spec.heap()));
        container.withEnv("CLI_JAVA_OPTS", TestenvProperties.LAUNCHER_JAVA_OPTS);
        container.withLabel(PluginImage.LABEL, clusterName);
        container.withStartupTimeout(spec.startTimeout());
        String name = clusterName + "-" + ElasticsearchYml.nodeName(i);
        container.withCreateContainerCmdModifier(cmd -> cmd.withName(name));
        if (networking == DockerNetworking.HOST) {
            container.withNetworkMode("host");
            container.setExposedPorts(List.of());
        } else {
            container.setPortBindings(List.of("127.0.0.1:" + nodePorts.http() + ":9200"));
            if (network != null) {
                container.withNetwork(network).withNetworkAliases(ElasticsearchYml.nodeName(i));
            }
        }
        return container;
    }

    /** Every node's settings, passed as environment variables (the image maps dotted names to settings). */
    private Map<String, String> settings(int i, List<NodePorts> allPorts, boolean tls) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("cluster.name", clusterName);
        settings.put("node.name", ElasticsearchYml.nodeName(i));
        if (networking == DockerNetworking.HOST) {
            settings.put("http.host", "127.0.0.1");
            settings.put("http.port", String.valueOf(allPorts.get(i).http()));
            settings.put("transport.host", DockerNetworking.transportAddress(i));
            settings.put("transport.port", String.valueOf(allPorts.get(i).transport()));
        }
        if (spec.nodes() == 1) {
            settings.put("discovery.type", "single-node");
        } else {
            settings.put(
                    "discovery.seed_hosts",
                    IntStream.range(0, spec.nodes())
                            .mapToObj(n -> networking == DockerNetworking.HOST
                                    ? DockerNetworking.transportAddress(n) + ":"
                                            + allPorts.get(n).transport()
                                    : ElasticsearchYml.nodeName(n) + ":9300")
                            .collect(Collectors.joining(",")));
            settings.put("cluster.initial_master_nodes", ElasticsearchYml.initialMasterNodes(spec.nodes()));
        }
        settings.put("xpack.security.enabled", "false");
        if (spec.security() != null) {
            settings.putAll(SecurityFiles.settings(spec.security()));
            if (tls && network != null) {
                // Nodes on their own addresses need TLS between them too (a bootstrap check), with the same
                // certificate.
                settings.put("xpack.security.transport.ssl.enabled", "true");
                settings.put("xpack.security.transport.ssl.verification_mode", "certificate");
                settings.put("xpack.security.transport.ssl.key", "certs/" + Tls.NODE_KEY);
                settings.put("xpack.security.transport.ssl.certificate", "certs/" + Tls.NODE_CERT);
                settings.put("xpack.security.transport.ssl.certificate_authorities", "certs/" + Tls.CA_CERT);
            }
        }
        settings.put("action.destructive_requires_name", "false");
        settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
        settings.putAll(spec.settings());
        return settings;
    }

    /** The CA and node certificate, made with the distribution's certutil as the local backend makes them. */
    private Path certificates() {
        Path workDir = TestenvProperties.workDir();
        Path jdk = JdkLocator.find(spec.version());
        Path esHome = DistributionCache.install(
                workDir, spec.version(), Artifacts.distribution(spec.version()), Optional.empty(), jdk);
        return Tls.ensure(workDir, esHome, jdk);
    }

    /**
     * The file realm (written to a temporary directory, read, and deleted again) and the certificates, by their path in
     * the container.
     */
    private Map<String, Transferable> securityFiles(String adminPassword, Optional<Path> tls) {
        Map<String, Transferable> files = new LinkedHashMap<>();
        Path dir = null;
        try {
            dir = Files.createTempDirectory("esrel-security-");
            // Only for a cluster with security.
            SecurityFiles.write(dir, Objects.requireNonNull(spec.security()), adminPassword);
            for (String file : List.of("users", "users_roles", "roles.yml")) {
                files.put(HOME + "/config/" + file, readable(dir.resolve(file)));
            }
        } catch (IOException e) {
            throw new EsClusterException("cannot write the security files: " + e, e);
        } finally {
            if (dir != null) {
                try {
                    FileTrees.delete(dir);
                } catch (IOException e) {
                    LOG.warn("Could not delete {}: {}", dir, e.toString());
                }
            }
        }
        tls.ifPresent(certs -> {
            for (String file : List.of(Tls.CA_CERT, Tls.NODE_CERT, Tls.NODE_KEY)) {
                files.put(HOME + "/config/certs/" + file, readable(certs.resolve(file)));
            }
        });
        return files;
    }

    /** A file readable by the image's user (uid 1000), whoever owns it in the container. */
    private static Transferable readable(Path file) {
        try {
            return Transferable.of(Files.readAllBytes(file), 0644);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public List<URI> httpUris() {
        return nodes.stream().map(Node::httpUri).toList();
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public Optional<SSLContext> sslContext() {
        return sslContext;
    }

    @Override
    public Optional<Path> caCertificate() {
        return caCertificate;
    }

    @Override
    public String version() {
        return spec.version();
    }

    @Override
    public int size() {
        return spec.nodes();
    }

    @Override
    public boolean pluginInstalled() {
        return spec.plugin();
    }

    @Override
    public boolean supportsNodeControl() {
        return true;
    }

    @Override
    public synchronized void stopNode(int i) {
        LOG.info("Stopping {} of {} (docker stop, SIGKILL after {} s)", name(i), clusterName, STOP_GRACE_SECONDS);
        thawNode(i);
        if (state(i).getRunning()) {
            docker().stopContainerCmd(id(i)).withTimeout(STOP_GRACE_SECONDS).exec();
        }
    }

    @Override
    public synchronized void killNode(int i) {
        LOG.info("Killing {} of {} (docker kill)", name(i), clusterName);
        thawNode(i); // a paused container cannot be killed
        if (state(i).getRunning()) {
            docker().killContainerCmd(id(i)).exec();
        }
        awaitState(i, false, Duration.ofSeconds(30));
    }

    @Override
    public synchronized void freezeNode(int i) {
        InspectContainerResponse.ContainerState state = state(i);
        if (!state.getRunning()) {
            throw new IllegalStateException("cannot freeze " + name(i) + ": it is not running");
        }
        if (!state.getPaused()) {
            LOG.info("Freezing {} of {} (docker pause)", name(i), clusterName);
            docker().pauseContainerCmd(id(i)).exec();
        }
    }

    @Override
    public synchronized void thawNode(int i) {
        InspectContainerResponse.ContainerState state = state(i);
        if (state.getRunning() && state.getPaused()) {
            LOG.info("Thawing {} of {} (docker unpause)", name(i), clusterName);
            docker().unpauseContainerCmd(id(i)).exec();
        }
    }

    @Override
    public synchronized void startNode(int i) {
        if (state(i).getRunning()) {
            throw new IllegalStateException(name(i) + " of " + clusterName + " is running");
        }
        LOG.info("Starting {} of {} again", name(i), clusterName);
        docker().startContainerCmd(id(i)).exec();
        long running = IntStream.range(0, nodes.size())
                .filter(n -> state(n).getRunning())
                .count();
        Node node = nodes.get(i);
        long deadline = System.nanoTime() + spec.startTimeout().toNanos();
        while (!http.answers(node.httpUri())) {
            if (!state(i).getRunning()) {
                throw new EsClusterException(name(i) + " of " + clusterName + " exited while starting" + logs());
            }
            if (System.nanoTime() > deadline) {
                throw new EsClusterException(name(i) + " of " + clusterName + " did not answer within "
                        + spec.startTimeout().toSeconds() + " s" + logs());
            }
            ClusterHealth.sleep(Duration.ofMillis(200));
        }
        ClusterHealth.await(http, runningUris(), null, (int) running, spec.startTimeout(), () -> {})
                .ifPresent(failure -> {
                    throw new EsClusterException(name(i) + " of " + clusterName + " did not rejoin: " + failure);
                });
    }

    /**
     * Starts node {@code i} again with {@code settings} added to its {@code elasticsearch.yml}. A container's
     * environment is fixed when it is created, so a setting the node was created with cannot be changed this way.
     */
    @Override
    public synchronized void startNode(int i, Map<String, String> settings) {
        Node node = nodes.get(i);
        for (String key : settings.keySet()) {
            if (node.settings().containsKey(key)) {
                throw new UnsupportedOperationException("the docker backend cannot change " + key + " of " + name(i)
                        + ", set when its container was created; give it to EsCluster.builder().setting(...)");
            }
        }
        String yml = node.container()
                .copyFileFromContainer(
                        HOME + "/config/elasticsearch.yml",
                        in -> new String(in.readAllBytes(), StandardCharsets.UTF_8));
        StringBuilder added = new StringBuilder(yml).append("\n# Added by esrel testenv for this node's next start.\n");
        settings.forEach((k, v) ->
                added.append(k).append(": ").append(ElasticsearchYml.quote(v)).append('\n'));
        node.container()
                .copyFileToContainer(
                        Transferable.of(added.toString().getBytes(StandardCharsets.UTF_8), 0664),
                        HOME + "/config/elasticsearch.yml");
        startNode(i);
    }

    @Override
    public synchronized boolean nodeRunning(int i) {
        return state(i).getRunning();
    }

    /** Stops and removes every container (Testcontainers' stop removes it and its volumes), then the network. */
    @Override
    public synchronized void close() {
        for (Node node : nodes) {
            try {
                node.container().stop();
            } catch (RuntimeException e) {
                LOG.warn("Could not remove the container of {}: {}", clusterName, e.toString());
            }
            node.ports().release(ports);
        }
        nodes.clear();
        if (network != null) {
            try {
                network.close();
            } catch (RuntimeException e) {
                LOG.warn("Could not remove the network of {}: {}", clusterName, e.toString());
            }
            network = null;
        }
    }

    private String name(int i) {
        return ElasticsearchYml.nodeName(i);
    }

    private String id(int i) {
        return nodes.get(i).container().getContainerId();
    }

    private static DockerClient docker() {
        return DockerClientFactory.instance().client();
    }

    private InspectContainerResponse.ContainerState state(int i) {
        return docker().inspectContainerCmd(id(i)).exec().getState();
    }

    private void awaitState(int i, boolean running, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (state(i).getRunning() != running) {
            if (System.nanoTime() > deadline) {
                throw new EsClusterException(name(i) + " of " + clusterName + " is still "
                        + (running ? "stopped" : "running") + " after " + timeout.toSeconds() + " s");
            }
            ClusterHealth.sleep(Duration.ofMillis(100));
        }
    }

    private List<URI> runningUris() {
        return IntStream.range(0, nodes.size())
                .filter(n -> state(n).getRunning())
                .mapToObj(n -> nodes.get(n).httpUri())
                .toList();
    }

    /** The last lines of each node's console log, for an error message. */
    private String logs() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < nodes.size(); i++) {
            String log;
            try {
                log = nodes.get(i).container().getContainerId() == null
                        ? "(no container)"
                        : LogTail.lastLines(nodes.get(i).container().getLogs(), 40);
            } catch (RuntimeException e) {
                log = "(no log: " + e.getMessage() + ")";
            }
            out.append("\n--- last lines of ")
                    .append(name(i))
                    .append("'s log ---\n")
                    .append(log);
        }
        return out.toString();
    }

    private static String rootCause(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause.toString();
    }
}
