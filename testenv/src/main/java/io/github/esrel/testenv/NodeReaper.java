package io.github.esrel.testenv;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kills the nodes of every local cluster still open when the JVM exits (a test run interrupted,
 * System.exit, a cluster never closed), so no Elasticsearch process outlives its test JVM. A JVM
 * killed with SIGKILL runs no hook: {@link StaleNodeSweeper} cleans up after it. Test threads keep running
 * while the hook does, so it first closes the {@link #LAUNCHES} gate: a node launched before is killed with
 * its cluster, a launch after is refused (seen once: a CI run stopped by SIGTERM left the node a test was
 * starting at that moment running).
 */
final class NodeReaper {

    private static final Set<LocalBackend> OPEN = ConcurrentHashMap.newKeySet();

    /** Every node launch of this JVM goes through it. */
    static final LaunchGate LAUNCHES = new LaunchGate();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            LAUNCHES.close();
                            OPEN.forEach(LocalBackend::reap);
                        },
                        "esrel-node-reaper"));
    }

    private NodeReaper() {}

    static void register(LocalBackend backend) {
        OPEN.add(backend);
    }

    static void unregister(LocalBackend backend) {
        OPEN.remove(backend);
    }
}
