package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import java.util.Arrays;

/**
 * The lock namespace of a request: the concrete index its target names. The index must exist (404 otherwise),
 * so that locks are only taken where Elasticsearch security can authorize them per index; an alias of one
 * index stands for that index, and anything naming several indices is refused.
 */
final class TreeLockNamespaces {

    private TreeLockNamespaces() {}

    static String resolve(ClusterIndices indices, TreeLockRequest request) {
        String[] concrete = indices.concreteIndexNames(request);
        if (concrete.length != 1) {
            Arrays.sort(concrete);
            throw new IllegalArgumentException("[" + request.index() + "] resolves to " + concrete.length + " indices "
                    + Arrays.toString(concrete) + "; tree locks are kept per index, name exactly one");
        }
        return concrete[0];
    }
}
