package io.github.esrel.testenv;

import static java.util.Objects.requireNonNull;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.elasticsearch.client.RestClient;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Elasticsearch cluster for tests, with the esrel plugin installed unless disabled.
 *
 * <p>Where the nodes run is chosen by the system property {@code esrel.testenv.backend}: {@code
 * local} (unpacked distribution, one process per node), {@code docker} (Testcontainers), {@code
 * external} (an already running cluster named by {@code esrel.testenv.url}) or {@code auto} (the
 * default: Docker where Testcontainers finds a daemon that has the image or can pull it, else local).
 *
 * <p>With JUnit 5, annotate the test class with {@link EsrelTest @EsrelTest} and a static field
 * with {@link Cluster @Cluster}. Without JUnit:
 *
 * <pre>{@code
 * try (EsCluster cluster = EsCluster.builder().nodes(3).build()) {
 *   cluster.start();
 *   cluster.client().index(i -> i.index("fs").id("1").document(Map.of("a", 1)));
 * }
 * }</pre>
 *
 * <p>Thread-safety: {@link #start()}, {@link #close()} and the node controls are serialized; the
 * clients are thread-safe. Accessors other than {@link #start()} and {@link #close()} throw {@link
 * IllegalStateException} unless the cluster is started. A closed cluster can be started again: it
 * then comes up fresh, with new data.
 */
public final class EsCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EsCluster.class);

    /** How long {@link #close()} waits for a shared cluster with node control to be green again. */
    private static final Duration RESTORE_HEALTH_TIMEOUT = Duration.ofMinutes(5);

    private final ClusterSpec spec;
    private volatile @Nullable Running running;

    private EsCluster(ClusterSpec spec) {
        this.spec = spec;
    }

    /**
     * Returns a builder for a 1-node cluster with the esrel plugin installed.
     *
     * @return a new builder with the default configuration
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the cluster and waits until every node answers and the cluster is green; does nothing if
     * it is already started.
     *
     * @throws EsClusterException if a node does not start or the cluster is not green within the
     *     start timeout; whatever was started is stopped again first
     */
    public synchronized void start() {
        if (running != null) {
            return;
        }
        running = spec.shared() ? SharedClusters.running(spec) : Running.start(spec);
    }

    /**
     * The Java API client (Jackson mapper), spread over all nodes; closed by {@link #close()}. It is
     * built from the {@code elasticsearch-java} line on the class path (see {@link Clients}).
     *
     * @return the client of the running cluster, shared by all callers
     * @throws IllegalStateException if the cluster is not started
     */
    public ElasticsearchClient client() {
        return running().api.client();
    }

    /**
     * A low-level client for raw HTTP requests, spread over all nodes: {@code
     * org.elasticsearch.client.RestClient}, which exists for the 8.x and 9.x lines of {@code
     * elasticsearch-java} alike. Closed by {@link #close()}.
     *
     * @return the low-level client of the running cluster, shared by all callers
     * @throws IllegalStateException if the cluster is not started
     */
    public RestClient restClient() {
        return running().restClient;
    }

    /**
     * A Java API client that authenticates as {@code user} of this cluster's {@link
     * Builder#security(Security) security}, to check what that user may and may not do. Made on
     * first use, closed by {@link #close()}.
     *
     * @param user a user defined in the cluster's {@link Security}
     * @return the user's client
     * @throws IllegalStateException if the cluster is not started or has no security
     * @throws IllegalArgumentException if the security defines no such user
     */
    public ElasticsearchClient clientAs(String user) {
        Running r = running();
        if (spec.security() == null) {
            throw new IllegalStateException(
                    "this cluster runs without security; build it with EsCluster.builder().security(...)");
        }
        return r.as(user, spec.security().password(user)).client();
    }

    /**
     * The PEM file of the certificate authority that signed the nodes' HTTP certificates, for a
     * cluster whose {@link Security#tls() TLS} testenv set up; empty otherwise. Give it to a client
     * the way an application gives its own cluster's CA ({@code
     * TransportUtils.sslContextFromHttpCaCrt(file)}).
     *
     * @return the CA certificate, or empty
     * @throws IllegalStateException if the cluster is not started
     */
    public Optional<Path> caCertificate() {
        return running().backend.caCertificate();
    }

    /**
     * HTTP headers every request to these nodes needs (such as {@code Authorization}); empty for
     * nodes testenv starts without security.
     *
     * @return the header names and values; never {@code null}
     * @throws IllegalStateException if the cluster is not started
     */
    public Map<String, String> requestHeaders() {
        return running().backend.headers();
    }

    /**
     * The HTTP address of every node, in node order (stopped nodes included).
     *
     * @return one address per node, index {@code i} for node {@code i}
     * @throws IllegalStateException if the cluster is not started
     */
    public List<URI> httpUris() {
        return running().backend.httpUris();
    }

    /**
     * The HTTP address of the first node.
     *
     * @return the address of node 0
     * @throws IllegalStateException if the cluster is not started
     */
    public URI httpUri() {
        return httpUris().get(0);
    }

    /**
     * The Elasticsearch version of the nodes, e.g. {@code 9.5.3}.
     *
     * @return the version string of the running nodes
     * @throws IllegalStateException if the cluster is not started
     */
    public String version() {
        return running().backend.version();
    }

    /**
     * The number of nodes.
     *
     * @return the node count, stopped nodes included; at least 1
     * @throws IllegalStateException if the cluster is not started
     */
    public int size() {
        return running().backend.size();
    }

    /**
     * Whether the esrel plugin is installed on the nodes.
     *
     * @return {@code true} if the nodes run with the esrel plugin
     * @throws IllegalStateException if the cluster is not started
     */
    public boolean pluginInstalled() {
        return running().backend.pluginInstalled();
    }

    /**
     * The backend that runs the nodes: {@code local}, {@code docker} or {@code external}.
     *
     * @return the backend name
     * @throws IllegalStateException if the cluster is not started
     */
    public String backendName() {
        return running().backend.name();
    }

    /**
     * Whether {@link #stopNode}, {@link #killNode}, {@link #startNode}, {@link #freezeNode}, {@link
     * #thawNode} and {@link #rollingRestart} work on this backend ({@code local} and {@code docker} support them).
     * Tests of failover can {@code assumeTrue} it.
     *
     * @return {@code true} if nodes can be stopped, killed, frozen and started; always {@code false} for a
     *     {@link Builder#shared() shared} cluster unless it was built {@link Builder#sharedWithNodeControl()
     *     with node control}
     * @throws IllegalStateException if the cluster is not started
     */
    public boolean supportsNodeControl() {
        return (!spec.shared() || spec.nodeControl()) && running().backend.supportsNodeControl();
    }

    /**
     * Whether {@link #partitions()} can cut links between this cluster's nodes: a cluster built {@link
     * Builder#partitionable() partitionable}, on the local backend, in a JVM that runs as root with iptables and its
     * owner match. Partition tests should {@code assumeTrue} it; {@link #partitions()} says why not.
     *
     * @return {@code true} if the nodes can be partitioned
     * @throws IllegalStateException if the cluster is not started
     */
    public boolean supportsPartitions() {
        try {
            running().backend.partitions();
            return true;
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * The network partitions of this cluster: isolate a node, split it into groups, a bridge, heal (see {@link
     * NetworkPartitions}). Only the transport traffic between nodes is cut; HTTP stays reachable. On a {@link
     * Builder#sharedWithNodeControl() shared} cluster, the partitions are healed when a class lets go of it.
     *
     * @return the partitions of the running cluster
     * @throws UnsupportedOperationException saying why, if the cluster cannot be partitioned (not built {@link
     *     Builder#partitionable() partitionable}, another backend than local, not root, no iptables or no owner match)
     * @throws IllegalStateException if the cluster is not started
     */
    public NetworkPartitions partitions() {
        return running().backend.partitions();
    }

    /**
     * Stops node {@code i} gracefully (SIGTERM), killing it if it has not exited after 15 s; its data
     * is kept for {@link #startNode}.
     *
     * @param i the node index, from 0 to {@link #size()} - 1
     * @throws IndexOutOfBoundsException if there is no node {@code i}
     * @throws UnsupportedOperationException if the backend cannot control nodes, or the cluster is
     *     {@link Builder#shared() shared} without node control
     */
    public synchronized void stopNode(int i) {
        controllableNode(i).stopNode(i);
        running().frozen.remove(i);
    }

    /**
     * Kills node {@code i} at once (SIGKILL), as a crash would; its data is kept for {@link
     * #startNode}.
     *
     * @param i the node index, from 0 to {@link #size()} - 1
     * @throws IndexOutOfBoundsException if there is no node {@code i}
     * @throws UnsupportedOperationException if the backend cannot control nodes, or the cluster is
     *     {@link Builder#shared() shared} without node control
     */
    public synchronized void killNode(int i) {
        controllableNode(i).killNode(i);
        running().frozen.remove(i);
    }

    /**
     * Freezes node {@code i}: suspends its process with SIGSTOP, as a long GC pause, a hung VM or a
     * stalled disk would. The node keeps its sockets open but answers nothing, so the other nodes
     * notice only through fault detection ({@code cluster.fault_detection.*}: by default three failed
     * checks of 10 s each) and requests sent to it wait for their timeout. Does nothing if the node
     * is frozen already. {@link #thawNode} continues it; {@link #stopNode} continues it before
     * stopping it, and {@link #killNode} and {@link #close()} kill it frozen or not (SIGKILL ends a
     * stopped process too), so a frozen node never outlives the cluster.
     *
     * @param i the node index, from 0 to {@link #size()} - 1
     * @throws IndexOutOfBoundsException if there is no node {@code i}
     * @throws IllegalStateException if node {@code i} is not running
     * @throws UnsupportedOperationException if the backend cannot control nodes, or the cluster is
     *     {@link Builder#shared() shared} without node control
     */
    public synchronized void freezeNode(int i) {
        controllableNode(i).freezeNode(i);
        running().frozen.add(i);
    }

    /**
     * Continues node {@code i} after {@link #freezeNode}: SIGCONT. The node carries on where it
     * stopped; if the cluster removed it meanwhile, it finds out and rejoins by itself. Cluster health
     * is not awaited: use {@link #waitForHealth}. Does nothing if the node is not frozen.
     *
     * @param i the node index, from 0 to {@link #size()} - 1
     * @throws IndexOutOfBoundsException if there is no node {@code i}
     * @throws UnsupportedOperationException if the backend cannot control nodes, or the cluster is
     *     {@link Builder#shared() shared} without node control
     */
    public synchronized void thawNode(int i) {
        controllableNode(i).thawNode(i);
        running().frozen.remove(i);
    }

    /**
     * Restarts every node in turn, as an operator upgrading a cluster would: stop node {@code i}
     * gracefully ({@link #stopNode}), start it again ({@link #startNode}), wait until the cluster is
     * back to the health it had before the call (green, or at least yellow if it was not green), then
     * the next node. Waiting for green between nodes is what keeps every shard with replicas available
     * throughout: a node is stopped only once the copies on the node before it have recovered. Frozen
     * nodes are thawed by their stop.
     *
     * @param healthTimeout how long to wait for the health after each node's start, at most
     * @throws UnsupportedOperationException if the backend cannot control nodes, or the cluster is
     *     {@link Builder#shared() shared} without node control
     * @throws EsClusterException if a node does not come back within the start timeout, or the health
     *     is not reached within {@code healthTimeout}
     */
    public synchronized void rollingRestart(Duration healthTimeout) {
        requireNonNull(healthTimeout, "healthTimeout cannot be null");
        controllableNode(0);
        String status = "green".equals(calls().healthStatus()) ? "green" : "yellow";
        for (int i = 0; i < size(); i++) {
            stopNode(i);
            startNode(i);
            waitForHealth(status, healthTimeout);
        }
    }

    /**
     * The node that holds the active primary copy of shard {@code shard} of {@code index}, as the
     * elected master sees it: a started primary, or the source of a primary being relocated (it serves
     * as primary until the hand-off). Fault tests use it to kill or freeze the node that matters. System
     * indices are found too (the name is looked up in the routing table, not resolved as an index
     * expression).
     *
     * @param index the concrete index name, not an alias or pattern
     * @param shard the shard number, from 0
     * @return the node index, from 0 to {@link #size()} - 1
     * @throws IllegalArgumentException if the index has no such shard
     * @throws EsClusterException if the index does not exist, the shard has no active primary, or no
     *     node answers
     * @throws UnsupportedOperationException if the node is not one testenv named (external backend)
     * @throws IllegalStateException if the cluster is not started
     */
    public int primaryNode(String index, int shard) {
        requireNonNull(index, "index cannot be null");
        if (shard < 0) {
            throw new IllegalArgumentException("shard must not be negative, got " + shard);
        }
        return calls().primaryNode(index, shard);
    }

    /**
     * The elected master node.
     *
     * @return the node index, from 0 to {@link #size()} - 1
     * @throws EsClusterException if there is no elected master, or no node answers
     * @throws UnsupportedOperationException if the node is not one testenv named (external backend)
     * @throws IllegalStateException if the cluster is not started
     */
    public int masterNode() {
        return calls().masterNode();
    }

    /**
     * Puts a block on {@code index} through the index settings API, as Elasticsearch does itself when
     * a node passes the flood-stage disk watermark ({@code read_only_allow_delete}) or an operator
     * freezes writes: {@code index.blocks.<block>: true}. Writes to a blocked index fail with 403
     * {@code cluster_block_exception} naming the block. Every backend supports it.
     *
     * @param index the index name, or a comma-separated list or pattern the settings API accepts
     * @param block {@code read_only}, {@code read_only_allow_delete}, {@code write}, {@code read} or
     *     {@code metadata}
     * @throws IllegalArgumentException if {@code block} is none of these
     * @throws EsClusterException if the cluster refuses the setting (a missing index, say)
     * @throws IllegalStateException if the cluster is not started
     */
    public void setBlock(String index, String block) {
        requireBlock(index, block);
        calls().block(index, block, true);
    }

    /**
     * Lifts a block set by {@link #setBlock} (or by Elasticsearch itself): removes {@code
     * index.blocks.<block>} from the index settings. Lifting a block that is not set does nothing.
     *
     * @param index the index name, or a comma-separated list or pattern the settings API accepts
     * @param block {@code read_only}, {@code read_only_allow_delete}, {@code write}, {@code read} or
     *     {@code metadata}
     * @throws IllegalArgumentException if {@code block} is none of these
     * @throws EsClusterException if the cluster refuses the setting (a missing index, say)
     * @throws IllegalStateException if the cluster is not started
     */
    public void removeBlock(String index, String block) {
        requireBlock(index, block);
        calls().block(index, block, false);
    }

    private static void requireBlock(String index, String block) {
        requireNonNull(index, "index cannot be null");
        requireNonNull(block, "block cannot be null");
        if (!ClusterCalls.BLOCKS.contains(block)) {
            throw new IllegalArgumentException(
                    "block must be one of " + new TreeSet<>(ClusterCalls.BLOCKS) + ", got '" + block + "'");
        }
    }

    /** Requests to the nodes, frozen ones last: they answer nothing until thawed. */
    private ClusterCalls calls() {
        Running r = running();
        List<URI> uris = r.backend.httpUris();
        List<URI> ordered = new ArrayList<>();
        for (int i = 0; i < uris.size(); i++) {
            if (!r.frozen.contains(i)) {
                ordered.add(uris.get(i));
            }
        }
        r.frozen.forEach(i -> ordered.add(uris.get(i)));
        return new ClusterCalls(new EsHttp(r.backend.headers(), r.backend.sslContext()), ordered);
    }

    /**
     * Starts the stopped or killed node {@code i} again with its data and waits until it answers and
     * has joined the cluster. Cluster health is not awaited: use {@link #waitForHealth}.
     *
     * @param i the node index, from 0 to {@link #size()} - 1
     * @throws IllegalStateException if the node is running
     * @throws EsClusterException if the node does not come back within the start timeout
     */
    public synchronized void startNode(int i) {
        ClusterBackend backend = controllableNode(i);
        backend.startNode(i);
        nodeStarted(backend);
    }

    /**
     * Starts the stopped or killed node {@code i} again, as {@link #startNode(int)}, with {@code settings} in its
     * {@code elasticsearch.yml} over the builder's, from this start on: a node's configuration changed across a
     * restart, as an upgrade changes it (settings read only at startup included).
     *
     * @param i        the node index, from 0 to {@link #size()} - 1
     * @param settings the settings to add or replace for this node
     * @throws IllegalStateException if the node is running
     * @throws EsClusterException if the node does not come back within the start timeout
     * @throws UnsupportedOperationException if the backend cannot control nodes
     */
    public synchronized void startNode(int i, Map<String, String> settings) {
        requireNonNull(settings, "settings cannot be null");
        ClusterBackend backend = controllableNode(i);
        backend.startNode(i, Map.copyOf(settings));
        nodeStarted(backend);
    }

    private void nodeStarted(ClusterBackend backend) {
        // A port taken meanwhile makes the node come back on new ports: tell the client.
        Running running = running();
        running.api.setNodes(backend.httpUris());
        running.users.values().forEach(u -> u.setNodes(backend.httpUris()));
        Clients.setNodes(running.restClient, backend.httpUris());
    }

    /**
     * Waits until the cluster health is at least {@code status}.
     *
     * @param status {@code green} or {@code yellow}
     * @param timeout how long to wait at most
     * @throws IllegalArgumentException if {@code status} is neither
     * @throws EsClusterException if the status is not reached within {@code timeout}
     */
    public void waitForHealth(String status, Duration timeout) {
        requireNonNull(status, "status cannot be null");
        requireNonNull(timeout, "timeout cannot be null");
        if (!status.equals("green") && !status.equals("yellow")) {
            throw new IllegalArgumentException("status must be green or yellow, got '" + status + "'");
        }
        ClusterBackend backend = running().backend;
        ClusterHealth.await(
                        new EsHttp(backend.headers(), backend.sslContext()),
                        backend.httpUris(),
                        status,
                        0,
                        timeout,
                        () -> {})
                .ifPresent(failure -> {
                    throw new EsClusterException("cluster is not " + status + ": " + failure);
                });
    }

    /**
     * The main log file of node {@code i}, or {@code null} when the backend has no local log file
     * (docker, external).
     *
     * @param i the node index, from 0 to {@link #size()} - 1
     * @return the path of the node's log file, or {@code null}
     * @throws IndexOutOfBoundsException if there is no node {@code i}
     * @throws IllegalStateException if the cluster is not started
     */
    public @Nullable Path nodeLog(int i) {
        return backendForNode(i).nodeLog(i);
    }

    /**
     * Stops every node and deletes its data (an external cluster is left running); idempotent. A
     * {@link Builder#shared() shared} cluster is only let go of: it stops when the test run ends. One
     * {@link Builder#sharedWithNodeControl() with node control} is first put back for the next class:
     * frozen nodes thawed, stopped or killed nodes started, the cluster awaited green; if that fails it
     * is stopped, and the next class that asks for it gets a fresh one.
     */
    @Override
    public synchronized void close() {
        Running r = running;
        if (r == null) {
            return;
        }
        if (spec.shared() && spec.nodeControl()) {
            restoreForTheNextClass(r);
        }
        running = null;
        if (!spec.shared()) {
            r.close();
        }
    }

    private void restoreForTheNextClass(Running r) {
        try {
            if (spec.partitionable()) {
                try {
                    r.backend.partitions().heal();
                } catch (UnsupportedOperationException e) {
                    // Nothing can have been cut.
                }
            }
            // Thaw first: a node's start waits until every running node is in the cluster, frozen ones too.
            for (int i = 0; i < r.backend.size(); i++) {
                if (r.frozen.contains(i)) {
                    thawNode(i);
                }
            }
            for (int i = 0; i < r.backend.size(); i++) {
                if (!r.backend.nodeRunning(i)) {
                    startNode(i);
                }
            }
            waitForHealth("green", RESTORE_HEALTH_TIMEOUT);
        } catch (RuntimeException e) {
            LOG.warn(
                    "Stopping the shared cluster {}: it could not be put back for the next class: {}",
                    this,
                    e.toString());
            SharedClusters.discard(spec, r);
        }
    }

    /**
     * Whether this cluster is {@link Builder#shared() shared} with other test classes.
     *
     * @return {@code true} if it was built with {@link Builder#shared()}
     */
    public boolean shared() {
        return spec.shared();
    }

    @Override
    public String toString() {
        Running r = running;
        return "EsCluster{"
                + spec
                + (r == null ? ", not started}" : ", " + r.backend.name() + " " + r.backend.httpUris() + "}");
    }

    private Running running() {
        Running r = running;
        if (r == null) {
            throw new IllegalStateException(
                    "EsCluster is not started: call start(), or annotate the field with @Cluster in an"
                            + " @EsrelTest class");
        }
        return r;
    }

    /** The backend, to stop, kill or start node {@code i}: never on a shared cluster without node control. */
    private ClusterBackend controllableNode(int i) {
        if (spec.shared() && !spec.nodeControl()) {
            throw new UnsupportedOperationException(
                    "this cluster is shared with other test classes: build one with EsCluster.builder()"
                            + " without shared(), or with sharedWithNodeControl(), to stop, kill, freeze or"
                            + " restart its nodes");
        }
        return backendForNode(i);
    }

    private ClusterBackend backendForNode(int i) {
        ClusterBackend backend = running().backend;
        if (i < 0 || i >= backend.size()) {
            throw new IndexOutOfBoundsException(
                    "node " + i + " does not exist: the cluster has nodes 0.." + (backend.size() - 1));
        }
        return backend;
    }

    /** The backend with its clients; one per start, so a restarted cluster gets fresh ones. */
    static final class Running implements AutoCloseable {
        final ClusterBackend backend;
        final Clients.ApiClient api;
        final RestClient restClient;

        private final Map<String, Clients.ApiClient> users = new ConcurrentHashMap<>();

        /** The nodes frozen through {@link EsCluster#freezeNode}, not yet thawed, stopped or killed. */
        final Set<Integer> frozen = ConcurrentHashMap.newKeySet();

        private Running(ClusterBackend backend) {
            this.backend = backend;
            this.api = Clients.apiClient(backend.httpUris(), backend.headers(), backend.sslContext());
            this.restClient = Clients.restClient(backend.httpUris(), backend.headers(), backend.sslContext());
        }

        /** The client of {@code user} with {@code password}, made on first use. */
        Clients.ApiClient as(String user, String password) {
            return users.computeIfAbsent(
                    user,
                    u -> Clients.apiClient(
                            backend.httpUris(),
                            Map.of("Authorization", SecurityFiles.basicAuth(u, password)),
                            backend.sslContext()));
        }

        /** Starts the nodes of {@code spec}; on failure stops whatever was started. */
        static Running start(ClusterSpec spec) {
            ClusterBackend backend = Backends.create(spec);
            try {
                backend.start();
                return new Running(backend);
            } catch (RuntimeException | Error e) {
                backend.close();
                throw e;
            }
        }

        /** Closes the clients and stops the nodes. */
        @Override
        public void close() {
            try (restClient) {
                api.close();
                for (Clients.ApiClient user : users.values()) {
                    user.close();
                }
            } catch (IOException e) {
                // The nodes are about to go away; a failing client close changes nothing for them.
            } finally {
                backend.close();
            }
        }
    }

    /**
     * Configures an {@link EsCluster}. Setters validate at once; {@link #build()} may be called more
     * than once, each result is independent and immutable.
     */
    public static final class Builder {

        private static final Pattern HEAP = Pattern.compile("[1-9][0-9]*[kKmMgG]");
        private static final Pattern VERSION = Pattern.compile("[0-9]+\\.[0-9]+\\.[0-9]+(-[A-Za-z0-9.]+)?");
        private static final Pattern SETTING_KEY = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.\\-]*");

        /** Settings testenv derives itself; overriding them would break starting or reaching nodes. */
        private static final Set<String> MANAGED_SETTINGS = Set.of(
                "cluster.name",
                "node.name",
                "network.host",
                "http.port",
                "transport.port",
                "path.data",
                "path.logs",
                "discovery.type",
                "discovery.seed_hosts",
                "cluster.initial_master_nodes");

        private int nodes = 1;
        private boolean shared;
        private boolean nodeControl;
        private boolean partitionable;
        private @Nullable Security security;
        private boolean plugin = true;
        private @Nullable String heap;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private Duration startTimeout = TestenvProperties.startTimeout();
        private String version = TestenvProperties.esVersion();

        private Builder() {}

        /**
         * Number of nodes; default 1. One node runs with {@code discovery.type: single-node}, more form
         * a cluster in which every node is master-eligible.
         *
         * @param nodes the number of nodes, at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code nodes < 1}
         */
        public Builder nodes(int nodes) {
            if (nodes < 1) {
                throw new IllegalArgumentException("nodes must be at least 1, got " + nodes);
            }
            this.nodes = nodes;
            return this;
        }

        /**
         * Shares the cluster with every other test class of the JVM that asks for the same
         * configuration: the first {@link #start()} starts it, {@link #close()} only lets go of it, and
         * it stops when the JUnit run ends (or the JVM exits). Node starts are what integration tests
         * spend most of their time on; a shared cluster pays for one. Tests on it must not assume an
         * empty cluster (name indices after the test class) and cannot stop, kill or restart its nodes
         * ({@link #supportsNodeControl()} is {@code false}; see {@link #sharedWithNodeControl()}). Default:
         * not shared.
         *
         * @return this builder
         */
        public Builder shared() {
            this.shared = true;
            this.nodeControl = false;
            return this;
        }

        /**
         * Shares the cluster as {@link #shared()} does, and lets the classes that share it stop, kill,
         * freeze and restart its nodes: for a suite of fault tests on a multi-node cluster, where
         * starting the nodes for every class is what costs the time. The classes take turns (JUnit runs
         * classes one after another unless parallel execution is turned on; do not turn it on for them),
         * and each leaves the cluster as it found it: when a class lets go of it ({@link #close()}, done
         * by the extension after the class), testenv thaws the nodes it froze, starts the nodes it stopped
         * or killed and waits for green, also when the class failed; a cluster that cannot be put back is
         * stopped, and the next class gets a fresh one. Indices, settings and data of earlier classes stay:
         * name indices after the test class. Such a cluster is only shared with classes that asked for
         * node control too. Default: not shared.
         *
         * @return this builder
         */
        public Builder sharedWithNodeControl() {
            this.shared = true;
            this.nodeControl = true;
            return this;
        }

        /**
         * Makes the cluster partitionable: each node runs as its own OS user ({@code esrel-n0}, {@code esrel-n1},
         * …, after {@code esrel.testenv.user}; created if missing), so iptables rules matching the owner of packets
         * can cut the links between nodes ({@link EsCluster#partitions()}). Needs the local backend and a JVM that
         * runs as root with iptables and its owner match; where that is missing the cluster still starts, {@link
         * EsCluster#supportsPartitions()} is {@code false} and {@link EsCluster#partitions()} throws, saying why.
         * Shared clusters that are partitionable are only shared with classes that asked for it too. Default: not
         * partitionable.
         *
         * @return this builder
         */
        public Builder partitionable() {
            this.partitionable = true;
            return this;
        }

        /**
         * Turns Elasticsearch security on: the users and roles of {@code security} in the file realm,
         * testenv's superuser {@value Security#ADMIN} for {@link EsCluster#client()}, and (unless
         * turned off) TLS on HTTP with a certificate authority testenv makes. Default: no security.
         * Supported by the local and docker backends; the external backend takes its credentials from system
         * properties instead.
         *
         * @param security the users, roles and TLS
         * @return this builder
         */
        public Builder security(Security security) {
            this.security = requireNonNull(security, "security cannot be null");
            return this;
        }

        /**
         * Whether to install the esrel plugin; default {@code true}. The plugin zip comes from the
         * system property {@code esrel.plugin.zip}, else from {@code
         * es-plugin/target/esrel-plugin-*-es<version>.zip} in a directory above the working directory;
         * {@link #start()} fails naming both places if neither has it.
         *
         * @param plugin {@code true} to install the plugin, {@code false} for plain Elasticsearch
         * @return this builder
         */
        public Builder plugin(boolean plugin) {
            this.plugin = plugin;
            return this;
        }

        /**
         * JVM heap per node, such as {@code 512m} or {@code 1g}; default {@code 512m} for one node,
         * {@code 256m} each for more.
         *
         * @param heap the heap size, used for both {@code -Xms} and {@code -Xmx}
         * @return this builder
         * @throws IllegalArgumentException if it is not a positive number followed by k, m or g
         */
        public Builder heap(String heap) {
            requireNonNull(heap, "heap cannot be null");
            if (!HEAP.matcher(heap).matches()) {
                throw new IllegalArgumentException("heap must look like 512m or 1g, got '" + heap + "'");
            }
            this.heap = heap;
            return this;
        }

        /**
         * Adds a setting to every node's {@code elasticsearch.yml} (a later call with the same key
         * wins); none by default. The value is written as a string, which Elasticsearch parses like any
         * setting value (a list as {@code "a,b"}). Ignored by the external backend.
         *
         * @param key the setting name, such as {@code action.destructive_requires_name}
         * @param value the setting value
         * @return this builder
         * @throws IllegalArgumentException if the key is not a setting name, or is one testenv manages
         *     itself: cluster and node names, network, ports, paths, discovery
         */
        public Builder setting(String key, String value) {
            requireNonNull(key, "setting key cannot be null");
            requireNonNull(value, "value of setting '" + key + "' cannot be null");
            if (!SETTING_KEY.matcher(key).matches()) {
                throw new IllegalArgumentException("'" + key + "' is not a setting name");
            }
            if (MANAGED_SETTINGS.contains(key)) {
                throw new IllegalArgumentException(
                        "setting '" + key + "' is managed by testenv and cannot be set; managed: " + MANAGED_SETTINGS);
            }
            settings.put(key, value);
            return this;
        }

        /**
         * How long {@link #start()} and {@link #startNode} wait for nodes to come up; default the
         * system property {@code esrel.testenv.start-timeout} (seconds, or ISO-8601 like {@code PT5M};
         * for machines where other builds compete for the cores), else 120 s.
         *
         * @param startTimeout how long to wait for nodes to start
         * @return this builder
         * @throws IllegalArgumentException if it is not positive
         */
        public Builder startTimeout(Duration startTimeout) {
            requireNonNull(startTimeout, "startTimeout cannot be null");
            if (startTimeout.isNegative() || startTimeout.isZero()) {
                throw new IllegalArgumentException("startTimeout must be positive, got " + startTimeout);
            }
            this.startTimeout = startTimeout;
            return this;
        }

        /**
         * Elasticsearch version; default the system property {@code esrel.es.version} (set by the
         * build), else {@code 9.5.3}. The external backend checks nothing against it.
         *
         * @param version the Elasticsearch version, such as {@code 9.5.3} or {@code 9.1.0-SNAPSHOT}
         * @return this builder
         * @throws IllegalArgumentException if it is not a version like {@code 9.5.3}
         */
        public Builder version(String version) {
            requireNonNull(version, "version cannot be null");
            if (!VERSION.matcher(version).matches()) {
                throw new IllegalArgumentException("version must look like 9.5.3, got '" + version + "'");
            }
            this.version = version;
            return this;
        }

        /**
         * Returns a new, not yet started cluster with this configuration.
         *
         * @return a new cluster; call {@link EsCluster#start()} to start it
         */
        public EsCluster build() {
            String effectiveHeap = heap != null ? heap : nodes == 1 ? "512m" : "256m";
            return new EsCluster(new ClusterSpec(
                    nodes,
                    plugin,
                    effectiveHeap,
                    settings,
                    startTimeout,
                    version,
                    shared,
                    nodeControl,
                    security,
                    partitionable));
        }
    }
}
