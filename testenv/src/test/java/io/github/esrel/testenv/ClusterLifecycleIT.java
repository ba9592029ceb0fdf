package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Clusters used without JUnit's help, as samples and benchmarks do. */
class ClusterLifecycleIT {

  @Test
  void shouldLeaveNoProcessAndNoDataAfterClose() {
    EsCluster cluster = EsCluster.builder().plugin(false).heap("384m").build();
    Path nodeDir;
    try (cluster) {
      cluster.start();
      cluster.start(); // idempotent
      nodeDir = cluster.nodeLog(0).getParent().getParent();
      assertThat(Processes.elasticsearchUnder(nodeDir)).hasSize(1);
    }

    assertThat(Processes.elasticsearchUnder(nodeDir)).isEmpty();
    assertThat(nodeDir.getParent()).doesNotExist();
    assertThatThrownBy(cluster::client)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not started");
    cluster.close(); // idempotent
  }

  @Test
  void shouldFailWithTheNodeLogWhenASettingIsBad() {
    EsCluster cluster =
        EsCluster.builder().plugin(false).setting("esrel.no.such.setting", "x").build();

    assertThatThrownBy(cluster::start)
        .isInstanceOf(EsClusterException.class)
        .hasMessageContaining("node-0")
        .hasMessageContaining("failed to start")
        .hasMessageContaining("unknown setting [esrel.no.such.setting]");

    assertThatThrownBy(cluster::client).isInstanceOf(IllegalStateException.class);
    assertThat(clusterDirs()).isEmpty();
  }

  private static java.util.List<Path> clusterDirs() {
    Path clusters = TestenvProperties.workDir().resolve("clusters");
    try (var dirs = Files.list(clusters)) {
      return dirs.toList();
    } catch (java.io.IOException e) {
      return java.util.List.of();
    }
  }
}
