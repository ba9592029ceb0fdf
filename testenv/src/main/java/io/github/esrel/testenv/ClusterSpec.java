package io.github.esrel.testenv;

import java.time.Duration;
import java.util.Map;

/** What an {@link EsCluster.Builder} asked for; immutable, the settings map keeps its order. */
record ClusterSpec(
    int nodes,
    boolean plugin,
    String heap,
    Map<String, String> settings,
    Duration startTimeout,
    String version) {

  ClusterSpec {
    settings = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(settings));
  }
}
