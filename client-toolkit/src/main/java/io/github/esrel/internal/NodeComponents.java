package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
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

    /**
     * The plugins and modules of every node, by node id: one {@code GET _nodes/plugins}. Read as plain JSON
     * rather than through the typed API, whose request and response types changed between client versions
     * (the metric became an enum in 9.3).
     */
    public static Map<String, NodeComponents> of(ElasticsearchClient client) throws IOException {
        JsonObject nodes =
                RestCall.get("/_nodes/plugins", Map.of()).sendForObject(client).getJsonObject("nodes");
        Map<String, NodeComponents> out = new LinkedHashMap<>();
        if (nodes != null) {
            nodes.forEach((id, node) -> out.put(
                    id,
                    new NodeComponents(names(node.asJsonObject(), "plugins"), names(node.asJsonObject(), "modules"))));
        }
        return out;
    }

    private static Set<String> names(JsonObject node, String key) {
        JsonValue list = node.get(key);
        if (!(list instanceof JsonArray array)) {
            return Set.of();
        }
        return array.stream()
                .map(v -> v.asJsonObject().getString("name", null))
                .filter(n -> n != null)
                .collect(Collectors.toSet());
    }
}
