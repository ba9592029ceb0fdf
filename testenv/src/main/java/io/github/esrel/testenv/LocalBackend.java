package io.github.esrel.testenv;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each node as a process of an unpacked Elasticsearch distribution on loopback. Layout under
 * the work directory ({@code esrel.work.dir}, default {@code target/esrel-testenv}): {@code
 * dist/<version>[-esrel-<plugin sha>]/} shared unpacked distributions, {@code clusters/<cluster
 * name>/node-<i>/} one directory per node, deleted on close.
 */
final class LocalBackend implements ClusterBackend {

    private static final Logger LOG = LoggerFactory.getLogger(LocalBackend.class);

    /** Launches per node when its ports turn out to be taken by the time it binds them. */
    private static final int LAUNCH_ATTEMPTS = 3;

    private static final Duration STOP_GRACE = Duration.ofSeconds(15);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

    private final ClusterSpec spec;
    private final PortAllocator ports;
    private final String clusterName =
            "esrel-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    private EsHttp http = new EsHttp(Map.of());

    /** testenv's own superuser and the trust in the nodes' certificate, when security is on. */
    private Map<String, String> headers = Map.of();

    private Optional<SSLContext> sslContext = Optional.empty();
    private Optional<Path> caCertificate = Optional.empty();

    /** Copy-on-write: the shutdown hook reads it without the lock. */
    private final List<LocalNode> nodes = new CopyOnWriteArrayList<>();
    /** Settings given to one node's later starts, over the cluster's. */
    private final Map<Integer, Map<String, String>> nodeSettings = new HashMap<>();

    private @Nullable Path clusterDir;

    /** Where the logs of nodes that failed to start are kept, since clusterDir is deleted. */
    // Set by start(), which EsCluster calls before anything else (NullAway.Init: not in the constructor).
    @SuppressWarnings("NullAway.Init")
    private Path failedLogs;

    // Set by start(), which EsCluster calls before anything else (NullAway.Init: not in the constructor).
    @SuppressWarnings("NullAway.Init")
    private Path esHome;

    // Set by start(), which EsCluster calls before anything else (NullAway.Init: not in the constructor).
    @SuppressWarnings("NullAway.Init")
    private Path jdk;

    private @Nullable NodeUser user;
    /** The account of each node: {@link #user} for all, or one per node in a partitionable cluster. */
    private final List<NodeUser> nodeUsers = new CopyOnWriteArrayList<>();
    /** The partitions of a partitionable cluster, or why there are none. */
    private @Nullable NetworkPartitions partitions;

    private @Nullable String noPartitions = "the cluster was built without partitionable()";
    private boolean closed;

    LocalBackend(ClusterSpec spec) {
        this(spec, PortAllocator.DEFAULT);
    }

    LocalBackend(ClusterSpec spec, PortAllocator ports) {
        this.spec = spec;
        this.ports = ports;
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public synchronized void start() {
        long started = System.nanoTime();
        user = NodeUser.detect();
        Path workDir = workDir(user);
        failedLogs = workDir.resolve("failed-logs");
        StaleNodeSweeper.sweepOnce(workDir.resolve("clusters"));
        jdk = JdkLocator.find(spec.version());
        Optional<Path> plugin = spec.plugin() ? Optional.of(Artifacts.pluginZip(spec.version())) : Optional.empty();
        esHome =
                DistributionCache.install(workDir, spec.version(), Artifacts.distribution(spec.version()), plugin, jdk);
        clusterDir = workDir.resolve("clusters").resolve(clusterName);
        try {
            Files.createDirectories(clusterDir);
            StaleNodeSweeper.markOwned(clusterDir);
        } catch (IOException e) {
            throw new EsClusterException("cannot create " + clusterDir + ": " + e, e);
        }
        NodeReaper.register(this);
        Optional<Path> tls = spec.security() != null && spec.security().tls()
                ? Optional.of(Tls.ensure(workDir, esHome, jdk))
                : Optional.empty();
        String adminPassword = SecurityFiles.newAdminPassword();
        for (int i = 0; i < spec.nodes(); i++) {
            LocalNode node = new LocalNode(clusterDir, clusterName, i, NodePorts.allocate(ports));
            node.prepare(esHome);
            if (spec.security() != null) {
                secure(node, tls, adminPassword);
            }
            nodes.add(node);
        }
        if (spec.security() != null) {
            headers = Map.of("Authorization", SecurityFiles.basicAuth(Security.ADMIN, adminPassword));
            caCertificate = tls.map(dir -> dir.resolve(Tls.CA_CERT));
            sslContext = caCertificate.map(Tls::trusting);
            http = new EsHttp(headers, sslContext);
        }
        writeConfigs();
        user.own(clusterDir);
        for (int i = 0; i < spec.nodes(); i++) {
            NodeUser own = spec.partitionable() ? NodeUser.forNode(i) : user;
            nodeUsers.add(own);
            if (own != user) {
                own.own(clusterDir.resolve(ElasticsearchYml.nodeName(i)));
            }
        }
        LOG.info(
                "Starting {}-node Elasticsearch {} cluster {} ({}{}) as user {} with Java {} in {}",
                spec.nodes(),
                spec.version(),
                clusterName,
                plugin.map(p -> "plugin " + p.getFileName()).orElse("no plugin"),
                spec.security() == null ? "" : ", " + spec.security(),
                nodeUsers.stream().map(NodeUser::describe).distinct().toList(),
                jdk,
                clusterDir);
        nodes.forEach(this::launch);
        awaitUp(nodes, spec.nodes(), "green");
        if (spec.partitionable()) {
            try {
                List<Integer> uids = nodeUsers.stream().map(NodeUser::uid).toList();
                partitions = NetworkPartitions.create(
                        clusterName,
                        uids,
                        () -> nodes.stream().map(n -> n.ports().transport()).toList());
            } catch (UnsupportedOperationException e) {
                noPartitions = e.getMessage();
                LOG.warn("Cluster {} was asked to be partitionable, but cannot be: {}", clusterName, noPartitions);
            }
        }
        LOG.info(
                "Cluster {} is green after {} ms: {}",
                clusterName,
                (System.nanoTime() - started) / 1_000_000,
                httpUris());
    }

    @Override
    public List<URI> httpUris() {
        return nodes.stream().map(LocalNode::httpUri).toList();
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

    /** Writes the file realm and, with TLS, the certificates into the node's config. */
    private void secure(LocalNode node, Optional<Path> tls, String adminPassword) {
        try {
            // Only for a cluster with security.
            SecurityFiles.write(node.configDirectory(), Objects.requireNonNull(spec.security()), adminPassword);
        } catch (IOException e) {
            throw new EsClusterException("cannot write the security files of " + node.name() + ": " + e, e);
        }
        tls.ifPresent(dir -> Tls.install(dir, node.configDirectory()));
        node.https(tls.isPresent());
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
        LOG.info("Stopping {} of {}", nodes.get(i).name(), clusterName);
        nodes.get(i).stop(STOP_GRACE);
    }

    @Override
    public synchronized void killNode(int i) {
        LOG.info("Killing {} of {}", nodes.get(i).name(), clusterName);
        nodes.get(i).kill();
    }

    @Override
    public synchronized void freezeNode(int i) {
        LOG.info("Freezing {} of {} (SIGSTOP)", nodes.get(i).name(), clusterName);
        nodes.get(i).freeze();
    }

    @Override
    public synchronized void thawNode(int i) {
        LOG.info("Thawing {} of {} (SIGCONT)", nodes.get(i).name(), clusterName);
        nodes.get(i).thaw();
    }

    @Override
    public synchronized void startNode(int i) {
        LocalNode node = nodes.get(i);
        LocalNode.Status status = node.poll();
        if (status == LocalNode.Status.RUNNING || status == LocalNode.Status.STARTING) {
            throw new IllegalStateException(node.name() + " of " + clusterName + " is running");
        }
        LOG.info("Starting {} of {} again", node.name(), clusterName);
        launch(node);
        int running = (int)
                nodes.stream().filter(n -> n.poll() != LocalNode.Status.STOPPED).count();
        awaitUp(List.of(node), running, null);
    }

    @Override
    public synchronized void startNode(int i, Map<String, String> settings) {
        nodeSettings.computeIfAbsent(i, k -> new LinkedHashMap<>()).putAll(settings);
        writeConfigs();
        startNode(i);
    }

    @Override
    public synchronized boolean nodeRunning(int i) {
        LocalNode.Status status = nodes.get(i).poll();
        return status == LocalNode.Status.RUNNING || status == LocalNode.Status.STARTING;
    }

    @Override
    public synchronized NetworkPartitions partitions() {
        if (partitions == null) {
            throw new UnsupportedOperationException("cannot partition cluster " + clusterName + ": " + noPartitions);
        }
        return partitions;
    }

    @Override
    public Path nodeLog(int i) {
        return nodes.get(i).log();
    }

    /** Kills rather than stops: the data is deleted next, so a graceful shutdown buys nothing. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        NodeReaper.unregister(this);
        if (partitions != null) {
            partitions.close();
        }
        reap();
        nodes.forEach(n -> n.ports().release(ports));
    }

    /** Kills every node and deletes the cluster directory; without the lock, for the hook. */
    void reap() {
        for (LocalNode node : nodes) {
            try {
                node.kill();
            } catch (RuntimeException e) {
                LOG.warn("Could not kill {} of {}: {}", node.name(), clusterName, e.getMessage());
            }
        }
        if (clusterDir != null) {
            try {
                FileTrees.delete(clusterDir);
            } catch (IOException e) {
                LOG.warn("Could not delete {}: {}", clusterDir, e.toString());
            }
        }
    }

    private void launch(LocalNode node) {
        NodeReaper.LAUNCHES.launch(
                node.name() + " of " + clusterName,
                () -> node.launch(esHome, jdk, spec.heap(), nodeUsers.get(nodes.indexOf(node))));
    }

    /**
     * Waits until every node of {@code starting} runs and the cluster has {@code nodeCount} nodes
     * (and {@code status}, if not null), relaunching a node on new ports if its ports were taken.
     */
    private void awaitUp(List<LocalNode> starting, int nodeCount, @Nullable String status) {
        long deadline = System.nanoTime() + spec.startTimeout().toNanos();
        int[] launches = new int[spec.nodes()];
        // The launcher returns once the node is up, so answering HTTP follows at once; checked anyway
        // because the health requests below need not reach every node.
        while (!allRunning(starting, launches) || !starting.stream().allMatch(this::answers)) {
            if (System.nanoTime() > deadline) {
                LocalNode slow = starting.stream()
                        .filter(n -> !n.isRunning())
                        .findFirst()
                        .orElse(starting.get(0));
                throw new EsClusterException(slow.name()
                        + " of cluster "
                        + clusterName
                        + " did not start within "
                        + spec.startTimeout().toSeconds()
                        + " s"
                        + slow.diagnostics(failedLogs));
            }
            ClusterHealth.sleep(POLL_INTERVAL);
        }
        Duration left =
                Duration.ofNanos(Math.max(deadline - System.nanoTime(), 0)).plusSeconds(5);
        Optional<String> timeout =
                ClusterHealth.await(http, runningUris(), status, nodeCount, left, () -> allRunning(nodes, launches));
        if (timeout.isPresent()) {
            throw new EsClusterException("cluster "
                    + clusterName
                    + " did not form: "
                    + timeout.get()
                    + nodes.get(0).diagnostics(failedLogs));
        }
    }

    /**
     * Polls the nodes: true when all run, false while some start.
     *
     * @throws EsClusterException if a node failed, after relaunching nodes whose ports were taken
     */
    private boolean allRunning(List<LocalNode> candidates, int[] launches) {
        boolean all = true;
        for (LocalNode node : candidates) {
            switch (node.poll()) {
                case RUNNING -> {}
                case STARTING -> all = false;
                case STOPPED -> {} // stopped on purpose, by the test
                case FAILED -> {
                    int index = nodes.indexOf(node);
                    if (!node.failedToBind() || ++launches[index] >= LAUNCH_ATTEMPTS) {
                        throw new EsClusterException(node.name()
                                + " of cluster "
                                + clusterName
                                + " (Elasticsearch "
                                + spec.version()
                                + ", "
                                + node.httpUri()
                                + ") failed to start: "
                                + node.failure()
                                + node.diagnostics(failedLogs));
                    }
                    relaunchOnNewPorts(node);
                    all = false;
                }
            }
        }
        return all;
    }

    private boolean answers(LocalNode node) {
        return node.poll() == LocalNode.Status.STOPPED || http.answers(node.httpUri());
    }

    private void relaunchOnNewPorts(LocalNode node) {
        NodePorts taken = node.ports();
        node.ports(NodePorts.allocate(ports));
        taken.release(ports);
        LOG.warn(
                "{} of {} could not bind {} (taken meanwhile by another process); retrying on {}",
                node.name(),
                clusterName,
                taken,
                node.ports());
        // Every node's seed hosts name the new transport port from its next start on.
        writeConfigs();
        launch(node);
    }

    private void writeConfigs() {
        List<NodePorts> allPorts = nodes.stream().map(LocalNode::ports).toList();
        Map<String, String> security = spec.security() == null ? Map.of() : SecurityFiles.settings(spec.security());
        for (int i = 0; i < nodes.size(); i++) {
            Map<String, String> settings = new LinkedHashMap<>(spec.settings());
            settings.putAll(nodeSettings.getOrDefault(i, Map.of()));
            nodes.get(i).writeConfig(allPorts, security, settings);
        }
    }

    private List<URI> runningUris() {
        return nodes.stream()
                .filter(LocalNode::isRunning)
                .map(LocalNode::httpUri)
                .toList();
    }

    /**
     * The configured work directory, unless the node user cannot reach it (a checkout under /root,
     * mode 700): then a directory under the system temp directory, the same for every run from that
     * checkout so stale clusters are still swept.
     */
    private static Path workDir(NodeUser user) {
        Path configured = TestenvProperties.workDir();
        if (user.canTraverse(configured)) {
            return configured;
        }
        Path fallback = Path.of(System.getProperty("java.io.tmpdir"))
                .resolve("esrel-testenv-"
                        + Integer.toHexString(configured.toString().hashCode()));
        LOG.warn(
                "User {} cannot reach {} (a parent directory is not traversable); using {} instead."
                        + " Set -D{} to choose another directory.",
                user.describe(),
                configured,
                fallback,
                TestenvProperties.WORK_DIR);
        return fallback;
    }
}
