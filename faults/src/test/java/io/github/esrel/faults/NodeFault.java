package io.github.esrel.faults;

import io.github.esrel.testenv.EsCluster;
import java.time.Duration;
import java.util.function.IntConsumer;

/**
 * A fault injected into one node of a testenv cluster, and how the node is brought back afterwards. Each
 * fault test takes one as a parameter, so that a new kind of fault is one more test method.
 *
 * @param name how the figure rows name the fault
 * @param inject injects the fault into node {@code i}
 * @param heal brings node {@code i} back
 */
record NodeFault(String name, IntConsumer inject, IntConsumer heal) {

    /** {@code kill -9} of the node, then a restart with its data. */
    static NodeFault kill(EsCluster cluster) {
        return new NodeFault("kill -9", cluster::killNode, cluster::startNode);
    }

    /**
     * {@code SIGSTOP} of the node: it keeps its sockets and answers nothing until the cluster's fault detection
     * removes it (its primaries' replicas are promoted); healed by {@code SIGCONT} and waiting for it to rejoin.
     */
    static NodeFault freeze(EsCluster cluster) {
        return new NodeFault("SIGSTOP", cluster::freezeNode, i -> {
            cluster.thawNode(i);
            cluster.waitForHealth("green", Duration.ofMinutes(5));
        });
    }
}
