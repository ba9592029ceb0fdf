package io.github.esrel.faults;

import io.github.esrel.testenv.EsCluster;
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

    // TODO(issue 13, freeze): once testenv has cluster.freezeNode(i)/cluster.thawNode(i) (SIGSTOP past the
    //  cluster's fault detection, then SIGCONT), add here:
    //      static NodeFault freeze(EsCluster cluster) {
    //          return new NodeFault("SIGSTOP", cluster::freezeNode, cluster::thawNode);
    //      }
    //  and one test method per fault test that passes NodeFault.freeze(cluster) (see the TODOs there).
}
