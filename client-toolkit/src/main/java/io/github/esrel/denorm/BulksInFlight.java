package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.internal.RestCall;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default number of {@code _bulk} requests a propagation job keeps in flight: what the cluster's write path can
 * take. Each bulk occupies one write thread per primary it touches, so the smallest write thread pool among the data
 * nodes bounds useful concurrency; a second request in flight also hides the client's own gap between two bulks
 * (deciding the next page), which is why the floor is 2. Capped at {@link #MAX}: every bulk in flight holds a page in
 * memory, and beyond a few the node only queues them.
 */
final class BulksInFlight {

    private static final Logger LOG = LoggerFactory.getLogger(BulksInFlight.class);

    /** Without an answer from the cluster (no {@code monitor} privilege, an old node): 2, safe on any cluster. */
    static final int FALLBACK = 2;

    static final int MAX = 4;

    private BulksInFlight() {}

    /** Asks the cluster ({@code GET _nodes/thread_pool}, needs the {@code monitor} cluster privilege). */
    static int of(ElasticsearchClient client) {
        try {
            JsonNode answer = RestCall.get(
                            "/_nodes/thread_pool", Map.of("filter_path", "nodes.*.roles,nodes.*.thread_pool.write.max"))
                    .sendForTree(client);
            return fromNodesInfo(answer);
        } catch (Exception e) {
            // Not the job's problem: a user without `monitor` still propagates, with the fallback.
            LOG.debug("Could not read the write thread pools ({}); {} bulks in flight", e.getMessage(), FALLBACK);
            return FALLBACK;
        }
    }

    /** The smallest write pool among data nodes, clamped to 2..{@link #MAX}; the fallback if none is named. */
    static int fromNodesInfo(JsonNode answer) {
        int smallest = Integer.MAX_VALUE;
        for (JsonNode node : answer.path("nodes")) {
            if (isDataNode(node.path("roles"))
                    && node.path("thread_pool").path("write").path("max").isInt()) {
                smallest = Math.min(
                        smallest,
                        node.path("thread_pool").path("write").path("max").asInt());
            }
        }
        return smallest == Integer.MAX_VALUE ? FALLBACK : Math.max(2, Math.min(MAX, smallest));
    }

    private static boolean isDataNode(JsonNode roles) {
        if (!roles.isArray()) {
            return true; // roles filtered out or unknown: count the node rather than ignore the answer
        }
        for (JsonNode role : roles) {
            if (role.asText().equals("data") || role.asText().startsWith("data_")) {
                return true;
            }
        }
        return false;
    }
}
