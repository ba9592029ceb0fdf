package io.github.esrel.testenv;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Waits for a cluster health status through whichever node answers. */
final class ClusterHealth {

    /** Server-side wait per request: short, so a dead node is noticed between requests. */
    private static final Duration POLL = Duration.ofSeconds(2);

    private ClusterHealth() {}

    /**
     * Waits until the cluster reports {@code status} or better (null: any status) with at least
     * {@code nodeCount} nodes (0: any number), asking the nodes in turn.
     *
     * @param check runs between requests and throws to abort the wait (for example when a node
     *     process has died)
     * @return empty once reached, or on timeout what the cluster last answered
     */
    static Optional<String> await(
            EsHttp http, List<URI> nodes, @Nullable String status, int nodeCount, Duration timeout, Runnable check) {
        String query = "/_cluster/health?timeout="
                + POLL.toSeconds()
                + "s"
                + (status != null ? "&wait_for_status=" + status : "")
                + (nodeCount > 0 ? "&wait_for_nodes=" + nodeCount : "");
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no node answered";
        for (int attempt = 0; ; attempt++) {
            check.run();
            URI node = nodes.get(attempt % nodes.size());
            try {
                EsHttp.Response response = http.get(node, query, POLL.plusSeconds(3));
                // 408 means the wait timed out server-side: keep polling.
                if (response.ok() && !response.body().path("timed_out").asBoolean(true)) {
                    return Optional.empty();
                }
                last = node + " answered " + response.status() + " " + response.body();
            } catch (IOException e) {
                last = node + ": " + e;
                sleep(Duration.ofMillis(250));
            }
            if (System.nanoTime() > deadline) {
                return Optional.of("health "
                        + (status != null ? status : "any")
                        + (nodeCount > 0 ? " with " + nodeCount + " nodes" : "")
                        + " not reached within "
                        + timeout.toSeconds()
                        + " s; last answer: "
                        + last);
            }
        }
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EsClusterException("interrupted while waiting for the cluster", e);
        }
    }
}
