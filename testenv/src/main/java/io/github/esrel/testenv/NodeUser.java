package io.github.esrel.testenv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The account local nodes run as. Elasticsearch refuses to run as root, so when this JVM is root
 * the nodes run as an unprivileged account (system property {@code esrel.testenv.user}, default
 * {@code esrel}), created if missing, through {@code runuser}; otherwise as this JVM's user.
 */
final class NodeUser {

    private static final Logger LOG = LoggerFactory.getLogger(NodeUser.class);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

    /** The account to switch to, or null to run as this JVM's user. */
    private final @Nullable String runAs;

    private NodeUser(@Nullable String runAs) {
        this.runAs = runAs;
    }

    /** Accounts already checked (and announced) by this JVM. */
    private static final Set<String> READY = ConcurrentHashMap.newKeySet();

    static NodeUser detect() {
        if (!isRoot()) {
            return new NodeUser(null);
        }
        String name = TestenvProperties.user();
        if (!READY.contains(name)) {
            ensureAccount(name);
            READY.add(name);
            LOG.info(
                    "Running as root, which Elasticsearch refuses: nodes run as user '{}' via runuser"
                            + " (change with -D{}=...)",
                    name,
                    TestenvProperties.USER);
        }
        return new NodeUser(name);
    }

    /**
     * The account of node {@code node} of a {@link EsCluster.Builder#partitionable() partitionable} cluster: one of
     * its own, {@code <user>-n<node>} (created if missing), so iptables owner rules tell the nodes apart; this JVM's
     * user when it is not root (such a cluster then cannot be partitioned).
     */
    static NodeUser forNode(int node) {
        if (!isRoot()) {
            return new NodeUser(null);
        }
        String name = TestenvProperties.user() + "-n" + node;
        if (READY.add(name)) {
            ensureAccount(name);
        }
        return new NodeUser(name);
    }

    /** The numeric id of the account the node runs as. */
    int uid() {
        String name = describe();
        Commands.Result r = Commands.run(List.of("id", "-u", name), Map.of(), null, COMMAND_TIMEOUT);
        if (!r.ok()) {
            throw new EsClusterException("id -u " + name + " exited " + r.exitCode() + ": "
                    + r.output().strip());
        }
        return Integer.parseInt(r.output().strip());
    }

    /** Words to put before the launcher command; empty when no switch of user is needed. */
    List<String> commandPrefix() {
        return runAs == null ? List.of() : List.of("runuser", "-u", runAs, "--");
    }

    /** Gives {@code dir} and everything below to the node account, so the node can write there. */
    void own(Path dir) {
        if (runAs == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            UserPrincipal owner =
                    FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName(runAs);
            for (Path path : (Iterable<Path>) paths::iterator) {
                Files.setOwner(path, owner);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot give " + dir + " to user " + runAs, e);
        }
    }

    /**
     * Whether the node account can reach {@code dir}: every existing ancestor must let it through.
     * Directories created later by this JVM are traversable (mode 755).
     */
    boolean canTraverse(Path dir) {
        if (runAs == null) {
            return true;
        }
        for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
            if (!Files.exists(p)) {
                continue;
            }
            try {
                PosixFileAttributes attributes = Files.readAttributes(p, PosixFileAttributes.class);
                boolean ownedByNodeUser = attributes.owner().getName().equals(runAs);
                if (!ownedByNodeUser && !attributes.permissions().contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    return false;
                }
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            }
        }
        return true;
    }

    String describe() {
        return runAs == null ? System.getProperty("user.name") : runAs;
    }

    static boolean isRoot() {
        if ("root".equals(System.getProperty("user.name"))) {
            return true;
        }
        try {
            // /proc/self belongs to this process's effective user.
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    private static void ensureAccount(String name) {
        if (accountExists(name)) {
            return;
        }
        LOG.info("Creating system user '{}' to run Elasticsearch nodes", name);
        Commands.Result result = Commands.run(
                List.of("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name),
                Map.of(),
                null,
                COMMAND_TIMEOUT);
        // Another JVM may have created it at the same moment: check again rather than trust the code.
        if (!accountExists(name)) {
            throw new EsClusterException("cannot create user '"
                    + name
                    + "' to run Elasticsearch (it refuses to run as root):"
                    + " useradd exited "
                    + result.exitCode()
                    + ": "
                    + result.output().strip()
                    + ". Create the user yourself, or name an existing one with -D"
                    + TestenvProperties.USER
                    + "=...");
        }
    }

    private static boolean accountExists(String name) {
        return Commands.run(List.of("id", "-u", name), Map.of(), null, COMMAND_TIMEOUT)
                .ok();
    }
}
