package io.github.esrel.testenv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes clusters left behind by a JVM that died without running its shutdown hook (kill -9, a
 * killed test fork). Each cluster directory names its owner JVM (pid and start time); a cluster
 * whose owner is gone has its node processes killed and its directory deleted. Clusters of live
 * JVMs, including concurrent test runs, are left alone.
 */
final class StaleNodeSweeper {

    private static final Logger LOG = LoggerFactory.getLogger(StaleNodeSweeper.class);
    private static final String OWNER_FILE = "owner";

    /** A directory this young without an owner file may be one another JVM is creating. */
    private static final Duration UNOWNED_GRACE = Duration.ofMinutes(1);

    private static final Set<Path> SWEPT = ConcurrentHashMap.newKeySet();

    private StaleNodeSweeper() {}

    /** Sweeps {@code clustersDir} the first time this JVM uses it. */
    static void sweepOnce(Path clustersDir) {
        if (SWEPT.add(clustersDir)) {
            sweep(clustersDir);
        }
    }

    /** Records this JVM as the owner of {@code clusterDir}. */
    static void markOwned(Path clusterDir) throws IOException {
        ProcessHandle self = ProcessHandle.current();
        Files.writeString(clusterDir.resolve(OWNER_FILE), self.pid() + " " + startMillis(self));
    }

    static void sweep(Path clustersDir) {
        if (!Files.isDirectory(clustersDir)) {
            return;
        }
        try (Stream<Path> clusters = Files.list(clustersDir)) {
            for (Path cluster : clusters.filter(Files::isDirectory).toList()) {
                if (!ownerAlive(cluster)) {
                    reap(cluster);
                }
            }
        } catch (IOException e) {
            LOG.warn("Could not look for stale clusters in {}: {}", clustersDir, e.toString());
        }
    }

    private static void reap(Path cluster) throws IOException {
        List<Path> nodes;
        try (Stream<Path> children = Files.list(cluster)) {
            nodes = children.filter(Files::isDirectory).toList();
        }
        for (Path node : nodes) {
            LocalNode.readPid(node.resolve("es.pid"))
                    .flatMap(ProcessHandle::of)
                    .filter(p -> isNodeOf(p, node))
                    .ifPresent(p -> {
                        LOG.info("Killing stale Elasticsearch process {} of {}", p.pid(), node);
                        p.destroyForcibly();
                        try {
                            p.onExit().get(10, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            LOG.warn("Stale process {} did not exit after SIGKILL: {}", p.pid(), e.toString());
                        }
                    });
        }
        FileTrees.delete(cluster);
        LOG.info("Removed stale cluster directory {}", cluster);
    }

    /**
     * A pid can be reused: only an Elasticsearch process whose command line names this node's
     * directory (its temp directory is there) counts.
     */
    private static boolean isNodeOf(ProcessHandle process, Path nodeDir) {
        return process.isAlive()
                && process.info()
                        .commandLine()
                        .map(c -> c.contains("org.elasticsearch") && c.contains(nodeDir + "/"))
                        .orElse(false);
    }

    private static boolean ownerAlive(Path cluster) throws IOException {
        Path ownerFile = cluster.resolve(OWNER_FILE);
        if (!Files.exists(ownerFile)) {
            Instant modified = Files.getLastModifiedTime(cluster).toInstant();
            return modified.isAfter(Instant.now().minus(UNOWNED_GRACE));
        }
        String[] owner = Files.readString(ownerFile).trim().split(" ");
        try {
            Optional<ProcessHandle> process = ProcessHandle.of(Long.parseLong(owner[0]));
            return process.isPresent()
                    && Long.toString(startMillis(process.get())).equals(owner[1]);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            return false;
        }
    }

    private static long startMillis(ProcessHandle process) {
        return process.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }
}
