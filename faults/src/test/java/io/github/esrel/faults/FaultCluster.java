package io.github.esrel.faults;

import io.github.esrel.testenv.EsCluster;

/**
 * The one cluster every fault class runs on: three master-eligible data nodes with the plugin, shared with
 * node control, so the suite pays for one start instead of one per class (starts are most of a fault
 * class's cost on a 2-core machine). Each class names its indices after itself; testenv puts the cluster
 * back (thaws, restarts, waits for green) when a class lets go of it, also after a failure.
 *
 * <p>Fault detection is tightened from three failed checks of 10 s to two of 5 s: a frozen node is removed
 * in ~10 s instead of ~30 s. The behaviour under test is the same (the node is dropped, replicas are
 * promoted); only the waiting is shorter, and it is what a freeze test mostly waits for.
 */
final class FaultCluster {

    private FaultCluster() {}

    static EsCluster build() {
        return EsCluster.builder()
                .nodes(3)
                .heap("512m")
                .sharedWithNodeControl()
                .partitionable()
                .setting("cluster.fault_detection.follower_check.timeout", "5s")
                .setting("cluster.fault_detection.follower_check.retry_count", "2")
                .setting("cluster.fault_detection.leader_check.timeout", "5s")
                .setting("cluster.fault_detection.leader_check.retry_count", "2")
                .build();
    }
}
