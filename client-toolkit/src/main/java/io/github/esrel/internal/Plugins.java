package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import java.io.IOException;
import java.util.Map;

/**
 * Detects the esrel plugin. Internal: not part of esrel's API.
 */
public final class Plugins {

    /** The plugin's name in {@code plugin-descriptor.properties}. */
    public static final String ESREL = "esrel";

    private Plugins() {}

    /**
     * True when <em>every</em> node lists the esrel plugin: a request for the plugin's endpoints may be
     * served by any node, so a partly installed cluster must be treated as not having it.
     */
    public static boolean esrelOnEveryNode(ElasticsearchClient client) throws IOException {
        Map<String, NodeComponents> nodes = ClientApi.nodeComponents(client);
        return !nodes.isEmpty()
                && nodes.values().stream().allMatch(n -> n.plugins().contains(ESREL));
    }
}
