package io.github.esrel.testenv;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kills the nodes of every local cluster still open when the JVM exits (a test run interrupted,
 * System.exit, a cluster never closed), so no Elasticsearch process outlives its test JVM. A JVM
 * killed with SIGKILL runs no hook: {@link StaleNodeSweeper} cleans up after it.
 */
final class NodeReaper {

    private static final Set<LocalBackend> OPEN = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> OPEN.forEach(LocalBackend::reap), "esrel-node-reaper"));
    }

    private NodeReaper() {}

    static void register(LocalBackend backend) {
        OPEN.add(backend);
    }

    static void unregister(LocalBackend backend) {
        OPEN.remove(backend);
    }
}
