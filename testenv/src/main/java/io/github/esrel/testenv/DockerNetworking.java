package io.github.esrel.testenv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the docker backend's nodes are networked, from {@code esrel.testenv.docker.network}: {@code bridge}, {@code
 * host} or {@code auto} (the default).
 */
enum DockerNetworking {
    /**
     * Each container on a Docker network (one node: Docker's default network), HTTP published on 127.0.0.1. Nodes of
     * a cluster have their own addresses, so Elasticsearch enforces its bootstrap checks on them.
     */
    BRIDGE,
    /**
     * Containers on the host's network, each node's transport on its own loopback address (127.0.0.11, .12, ...) and
     * its HTTP on 127.0.0.1, with ports testenv picks: loopback addresses exempt the nodes from the bootstrap checks.
     * Linux only (the daemon's host is this machine).
     */
    HOST;

    private static final Logger LOG = LoggerFactory.getLogger(DockerNetworking.class);

    /** Elasticsearch's bootstrap check on open files. */
    static final long REQUIRED_OPEN_FILES = 65_535;

    static DockerNetworking choose(int nodes) {
        String configured = TestenvProperties.dockerNetwork();
        if (!configured.equals("auto")) {
            return valueOf(configured.toUpperCase(Locale.ROOT));
        }
        DockerNetworking chosen = choose(nodes, openFilesHardLimit(), localLinuxDaemon());
        LOG.info(
                "esrel testenv: docker networking {} for {} node(s) (auto; open-files hard limit {}, {})",
                chosen.describe(),
                nodes,
                openFilesHardLimit().isPresent() ? openFilesHardLimit().getAsLong() : "unknown",
                localLinuxDaemon() ? "daemon on this Linux host" : "daemon elsewhere");
        return chosen;
    }

    /**
     * One node never needs the host's network (single-node discovery skips the bootstrap checks); a cluster does where
     * containers cannot get 65,535 open files. Containers inherit the daemon's limits, and on a daemon on this host
     * those are bounded by the same hard limit as this JVM's.
     */
    static DockerNetworking choose(int nodes, OptionalLong openFilesHardLimit, boolean localLinuxDaemon) {
        if (nodes > 1
                && localLinuxDaemon
                && openFilesHardLimit.isPresent()
                && openFilesHardLimit.getAsLong() < REQUIRED_OPEN_FILES) {
            return HOST;
        }
        return BRIDGE;
    }

    String describe() {
        return this == HOST
                ? "host network, each node's transport on its own loopback address"
                : "Docker network, HTTP published on 127.0.0.1";
    }

    /** The loopback address of node {@code i}'s transport on the host's network. */
    static String transportAddress(int i) {
        return "127.0.0." + (11 + i);
    }

    private static OptionalLong openFilesHardLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String[] fields = line.trim().split("\\s+");
                    String hard = fields[fields.length - 2];
                    return hard.equals("unlimited")
                            ? OptionalLong.of(Long.MAX_VALUE)
                            : OptionalLong.of(Long.parseLong(hard));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: unknown
        }
        return OptionalLong.empty();
    }

    private static boolean localLinuxDaemon() {
        String host = System.getenv("DOCKER_HOST");
        return System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
                && (host == null || host.startsWith("unix://"));
    }
}
