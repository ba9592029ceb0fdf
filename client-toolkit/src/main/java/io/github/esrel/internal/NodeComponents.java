package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.nodes.info.NodeInfo;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The names of the plugins and of the modules one node runs, from its node info.
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
public record NodeComponents(Set<String> plugins, Set<String> modules) {

    public NodeComponents {
        plugins = Set.copyOf(plugins);
        modules = Set.copyOf(modules);
    }

    static Map<String, NodeComponents> of(Map<String, NodeInfo> nodes) {
        Map<String, NodeComponents> out = new LinkedHashMap<>();
        nodes.forEach((id, node) -> out.put(
                id,
                new NodeComponents(
                        node.plugins() == null
                                ? Set.of()
                                : node.plugins().stream().map(p -> p.name()).collect(Collectors.toSet()),
                        node.modules() == null
                                ? Set.of()
                                : node.modules().stream().map(m -> m.name()).collect(Collectors.toSet()))));
        return out;
    }
}
