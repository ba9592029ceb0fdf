package io.github.esrel.testenv;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link EsCluster.Builder} asked for; immutable, the settings map keeps its order. Equal
 * specs of {@link #shared} clusters name the same cluster, so a shared cluster with {@link #nodeControl}
 * is never handed to a class that did not ask for it, nor a {@link #partitionable} one to a class that did not.
 */
record ClusterSpec(
        int nodes,
        boolean plugin,
        String heap,
        Map<String, String> settings,
        Duration startTimeout,
        String version,
        boolean shared,
        boolean nodeControl,
        @Nullable Security security,
        boolean partitionable) {

    ClusterSpec {
        settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    }
}
