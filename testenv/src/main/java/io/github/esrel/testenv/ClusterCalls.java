package io.github.esrel.testenv;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The requests behind the fault operations: where a primary and the master are, index blocks,
 * cluster health. Each asks the nodes in turn with a short timeout, so a frozen or stopped node
 * costs seconds, not the client's socket timeout.
 */
final class ClusterCalls {

    /** The block settings {@code index.blocks.<name>} tests may set and remove. */
    static final Set<String> BLOCKS = Set.of("read_only", "read_only_allow_delete", "write", "read", "metadata");

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final EsHttp http;
    private final List<URI> nodes;

    ClusterCalls(EsHttp http, List<URI> nodes) {
        this.http = http;
        this.nodes = List.copyOf(nodes);
    }

    /** The node index (from its name, {@code node-<i>}) holding the primary of {@code shard}. */
    int primaryNode(String index, int shard) {
        JsonNode state = get("/_cluster/state/routing_table,nodes");
        JsonNode copies =
                state.path("routing_table").path("indices").path(index).path("shards");
        if (copies.isMissingNode()) {
            throw new EsClusterException("index [" + index + "] does not exist");
        }
        JsonNode copiesOfShard = copies.path(String.valueOf(shard));
        if (copiesOfShard.isMissingNode()) {
            throw new IllegalArgumentException(
                    "index [" + index + "] has no shard " + shard + "; it has " + copies.size());
        }
        for (JsonNode copy : copiesOfShard) {
            // A RELOCATING primary is still the serving primary: "node" is the source, which holds it
            // until the hand-off to "relocating_node". The cluster rebalances after a node comes back,
            // so a fault test that asks right after green health can meet one (it did, in CI).
            String copyState = copy.path("state").asText();
            if (copy.path("primary").asBoolean() && ("STARTED".equals(copyState) || "RELOCATING".equals(copyState))) {
                return nodeIndex(state, copy.path("node").asText());
            }
        }
        throw new EsClusterException("shard " + shard + " of [" + index + "] has no active primary: " + copiesOfShard);
    }

    /** The node index of the elected master. */
    int masterNode() {
        JsonNode state = get("/_cluster/state/master_node,nodes");
        String master = state.path("master_node").asText(null);
        if (master == null) {
            throw new EsClusterException("the cluster has no elected master: " + state);
        }
        return nodeIndex(state, master);
    }

    /** {@code green}, {@code yellow} or {@code red}. */
    String healthStatus() {
        return get("/_cluster/health").path("status").asText();
    }

    /** Sets {@code index.blocks.<block>} of {@code index} to {@code true}, or removes it. */
    void block(String index, String block, boolean on) {
        String body = "{\"index.blocks." + block + "\":" + (on ? "true" : "null") + "}";
        String path = "/" + URLEncoder.encode(index, StandardCharsets.UTF_8) + "/_settings";
        call(path, node -> http.put(node, path, body, TIMEOUT));
    }

    private JsonNode get(String path) {
        return call(path, node -> http.get(node, path, TIMEOUT));
    }

    private interface Request {
        EsHttp.Response send(URI node) throws IOException;
    }

    /**
     * The body of the first 2xx answer; a 4xx answer is final (the request is wrong), a 5xx or no
     * answer moves on to the next node.
     */
    private JsonNode call(String path, Request request) {
        String last = "no node answered";
        for (URI node : nodes) {
            try {
                EsHttp.Response response = request.send(node);
                if (response.ok()) {
                    return response.body();
                }
                last = node + path + " answered " + response.status() + " " + response.body();
                if (response.status() / 100 == 4) {
                    break;
                }
            } catch (IOException e) {
                last = node + path + ": " + e;
            }
        }
        throw new EsClusterException("request failed on every node: " + last);
    }

    /** The index of the node named {@code nodeId} in {@code state}'s node list. */
    private int nodeIndex(JsonNode state, String nodeId) {
        String name = state.path("nodes").path(nodeId).path("name").asText(null);
        for (int i = 0; i < nodes.size(); i++) {
            if (ElasticsearchYml.nodeName(i).equals(name)) {
                return i;
            }
        }
        StringBuilder names = new StringBuilder();
        for (JsonNode node : state.path("nodes")) {
            names.append(names.isEmpty() ? "" : ", ").append(node.path("name").asText());
        }
        throw new UnsupportedOperationException("node "
                + nodeId
                + " ("
                + name
                + ") is not one testenv named; the nodes are: "
                + names
                + ". Node indices exist only for nodes testenv started (the local backend)");
    }
}
