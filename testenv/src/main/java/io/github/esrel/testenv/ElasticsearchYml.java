package io.github.esrel.testenv;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Renders the {@code elasticsearch.yml} of one local node. */
final class ElasticsearchYml {

    private ElasticsearchYml() {}

    /**
     * @param ports the ports of every node of the cluster, in node order
     * @param securitySettings settings that turn security on; empty for a node without it
     * @param userSettings extra settings; they override testenv's defaults (never the managed keys,
     *     which the builder refuses)
     */
    static String render(
            String clusterName,
            int node,
            List<NodePorts> ports,
            Path data,
            Path logs,
            Map<String, String> securitySettings,
            Map<String, String> userSettings) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("cluster.name", clusterName);
        settings.put("node.name", nodeName(node));
        settings.put("network.host", "127.0.0.1");
        settings.put("http.port", String.valueOf(ports.get(node).http()));
        settings.put("transport.port", String.valueOf(ports.get(node).transport()));
        settings.put("path.data", data.toString());
        settings.put("path.logs", logs.toString());
        if (ports.size() == 1) {
            settings.put("discovery.type", "single-node");
        } else {
            settings.put(
                    "discovery.seed_hosts",
                    ports.stream().map(p -> "127.0.0.1:" + p.transport()).collect(Collectors.joining(",")));
            settings.put("cluster.initial_master_nodes", initialMasterNodes(ports.size()));
        }
        settings.put("xpack.security.enabled", "false");
        settings.putAll(securitySettings);
        settings.put("action.destructive_requires_name", "false");
        // Test machines often have fuller disks than the watermarks allow; unassigned shards would
        // then turn health red or yellow for reasons no test is about.
        settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
        settings.putAll(userSettings);

        StringBuilder yml = new StringBuilder("# Written by esrel testenv for this node only.\n");
        settings.forEach((k, v) -> yml.append(k).append(": ").append(quote(v)).append('\n'));
        return yml.toString();
    }

    /** Every node of a cluster of {@code nodes}, by name: each is master-eligible. */
    static String initialMasterNodes(int nodes) {
        return IntStream.range(0, nodes).mapToObj(ElasticsearchYml::nodeName).collect(Collectors.joining(","));
    }

    static String nodeName(int node) {
        return "node-" + node;
    }

    /** A YAML double-quoted scalar: Elasticsearch parses every setting from its string form. */
    static String quote(String value) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\t' -> quoted.append("\\t");
                default -> quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }
}
