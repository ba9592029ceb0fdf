package io.github.esrel.testenv;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link EsCluster.Builder#shared() shared} clusters of this JVM, one per spec: started on first
 * use, stopped by {@link #closeAll()} (the JUnit extension registers it to run when the test run
 * ends; without JUnit, the JVM's shutdown hook kills the nodes).
 */
final class SharedClusters {

    private static final Map<ClusterSpec, EsCluster.Running> RUNNING = new LinkedHashMap<>();

    private SharedClusters() {}

    /** The running cluster for {@code spec}, started now if it is not yet. */
    static synchronized EsCluster.Running running(ClusterSpec spec) {
        EsCluster.Running running = RUNNING.get(spec);
        if (running == null) {
            running = EsCluster.Running.start(spec);
            RUNNING.put(spec, running);
        }
        return running;
    }

    /** Stops {@code running}, the cluster of {@code spec}, if it still is; a later {@link #running} starts afresh. */
    static void discard(ClusterSpec spec, EsCluster.Running running) {
        synchronized (SharedClusters.class) {
            RUNNING.remove(spec, running);
        }
        running.close();
    }

    /** Stops every shared cluster; a later {@link #running} starts afresh. */
    static void closeAll() {
        List<EsCluster.Running> all;
        synchronized (SharedClusters.class) {
            all = new ArrayList<>(RUNNING.values());
            RUNNING.clear();
        }
        for (EsCluster.Running running : all) {
            running.close();
        }
    }
}
