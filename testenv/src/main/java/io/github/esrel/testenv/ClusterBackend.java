package io.github.esrel.testenv;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Runs the nodes of one {@link EsCluster}. One instance per start: {@link #close()} ends it for
 * good. Node indices are checked by the caller.
 */
interface ClusterBackend extends AutoCloseable {

    /** {@code local}, {@code docker} or {@code external}. */
    String name();

    /** Brings the cluster up (green, all nodes joined); on failure leaves nothing running. */
    void start();

    List<URI> httpUris();

    /** HTTP headers every request needs, such as authentication; empty for test nodes without security. */
    default Map<String, String> headers() {
        return Map.of();
    }

    /** The TLS context that trusts the nodes' certificates, when they serve HTTPS with a private CA. */
    default Optional<SSLContext> sslContext() {
        return Optional.empty();
    }

    /** The PEM file of the CA that signed the nodes' HTTP certificates, when testenv made it. */
    default Optional<Path> caCertificate() {
        return Optional.empty();
    }

    String version();

    int size();

    boolean pluginInstalled();

    default boolean supportsNodeControl() {
        return false;
    }

    default void stopNode(int i) {
        throw noNodeControl();
    }

    default void killNode(int i) {
        throw noNodeControl();
    }

    default void startNode(int i) {
        throw noNodeControl();
    }

    /** Starts node {@code i} again with {@code settings} over the cluster's, from this start on. */
    default void startNode(int i, Map<String, String> settings) {
        throw noNodeControl();
    }

    /** Whether node {@code i}'s process runs (frozen or not); {@code true} where testenv does not control nodes. */
    default boolean nodeRunning(int i) {
        return true;
    }

    /** Suspends node {@code i}'s process (SIGSTOP); a no-op if it is frozen already. */
    default void freezeNode(int i) {
        throw noNodeControl();
    }

    /** Continues node {@code i}'s process (SIGCONT); a no-op unless it is frozen. */
    default void thawNode(int i) {
        throw noNodeControl();
    }

    /**
     * The partitions of this cluster's nodes.
     *
     * @throws UnsupportedOperationException saying why where they cannot be cut
     */
    default NetworkPartitions partitions() {
        throw new UnsupportedOperationException("the "
                + name()
                + " backend cannot partition nodes: build the cluster with partitionable() and run it with -D"
                + TestenvProperties.BACKEND
                + "=local");
    }

    /** The node's main log file, or {@code null} if the backend has none on this machine. */
    default @Nullable Path nodeLog(int i) {
        return null;
    }

    /** Stops what this backend started and deletes its data; idempotent, never throws. */
    @Override
    void close();

    private UnsupportedOperationException noNodeControl() {
        return new UnsupportedOperationException("the "
                + name()
                + " backend cannot stop, start or freeze single nodes; run with -D"
                + TestenvProperties.BACKEND
                + "=local, or skip with"
                + " assumeTrue(cluster.supportsNodeControl())");
    }
}
