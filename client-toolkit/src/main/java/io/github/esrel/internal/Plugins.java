package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
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
     * True when the server answered a request to one of the plugin's paths as a server without that path
     * answers: Elasticsearch says "no handler found for uri …" (400, or 404/405 on some lines) when no route
     * matches, and "Incorrect HTTP method for uri … allowed: [POST]" (405) when a route of its own with a
     * wildcard matches the path for other methods only (8.19 answers {@code GET /idx/_routing_calc} and
     * {@code GET /idx/_treelock} so). The plugin serves every method its clients send on
     * each of its paths, so neither answer can come from a node that has it.
     *
     * @param e what the server answered
     * @return whether the answer means the path has no handler for the method on the node that served it
     */
    public static boolean isMissingHandler(ElasticsearchException e) {
        String reason = e.error() == null ? null : e.error().reason();
        if (reason == null) {
            return false;
        }
        return (e.status() == 400 || e.status() == 404 || e.status() == 405) && reason.contains("no handler found")
                || e.status() == 405 && reason.startsWith("Incorrect HTTP method");
    }

    /**
     * True when <em>every</em> node lists the esrel plugin: a request for the plugin's endpoints may be
     * served by any node, so a partly installed cluster must be treated as not having it.
     */
    public static boolean esrelOnEveryNode(ElasticsearchClient client) throws IOException {
        Map<String, NodeComponents> nodes = NodeComponents.of(client);
        return !nodes.isEmpty()
                && nodes.values().stream().allMatch(n -> n.plugins().contains(ESREL));
    }
}
