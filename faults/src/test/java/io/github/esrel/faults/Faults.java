package io.github.esrel.faults;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.internal.RestCall;
import io.github.esrel.testenv.EsCluster;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the fault tests share: which node holds an index's primaries, waiting with a deadline, the figure row. */
final class Faults {

    /** testenv names node {@code i} {@code node-i} (its ElasticsearchYml); the kill and restart take {@code i}. */
    private static final String NODE_PREFIX = "node-";

    private Faults() {}

    /**
     * The node that holds the most started primaries of {@code index} (the lowest index on a tie), from
     * {@code _cat/shards}.
     *
     * @throws IllegalStateException if no primary of the index is started, or a node name is not testenv's
     */
    static int nodeWithMostPrimaries(ElasticsearchClient es, String index) throws IOException {
        // As plain JSON: the typed _cat/shards answer is spelled differently on the two client lines the suite runs on.
        JsonArray shards = RestCall.get("/_cat/shards/" + RestCall.segment(index), Map.of("format", "json"))
                .send(es)
                .toJson(es._jsonpMapper())
                .asJsonArray();
        Map<Integer, Integer> primaries = new HashMap<>();
        for (JsonObject s : shards.getValuesAs(JsonObject.class)) {
            if ("p".equals(s.getString("prirep", null)) && "STARTED".equals(s.getString("state", null))) {
                primaries.merge(nodeIndex(s.getString("node", null)), 1, Integer::sum);
            }
        }
        int best = -1;
        for (Map.Entry<Integer, Integer> e : primaries.entrySet()) {
            if (best < 0
                    || e.getValue() > primaries.get(best)
                    || (e.getValue().equals(primaries.get(best)) && e.getKey() < best)) {
                best = e.getKey();
            }
        }
        if (best < 0) {
            throw new IllegalStateException("no started primary of [" + index + "]: " + shards);
        }
        return best;
    }

    /** The testenv node index of a node name such as {@code node-2}. */
    static int nodeIndex(String nodeName) {
        if (nodeName == null || !nodeName.startsWith(NODE_PREFIX)) {
            throw new IllegalStateException(
                    "node name [" + nodeName + "] is not a testenv name like " + NODE_PREFIX + "0");
        }
        return Integer.parseInt(nodeName.substring(NODE_PREFIX.length()));
    }

    /** Polls {@code condition} every 10 ms until it holds; fails naming {@code what} after {@code seconds}. */
    static void await(String what, int seconds, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up after " + seconds + " s waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    /**
     * Prints the figure row of one fault test: the fault, the capability, the operations checked, the
     * violations of the capability's guarantee found (must be 0), and the time from the fault to the
     * capability's next acknowledged unit of work (-1 when the test measures none).
     */
    static void figure(String fault, String capability, long operations, long violations, long recoveryMs) {
        System.out.printf(
                "FIGURE | fault=%s | capability=%s | operations=%d | violations=%d | recovery_ms=%d%n",
                fault, capability, operations, violations, recoveryMs);
    }

    private static final Pattern NODES = Pattern.compile("\"number_of_nodes\"\\s*:\\s*(\\d+)");

    /**
     * Waits until a node other than {@code frozen} reports the cluster without it: fault detection removed
     * the frozen node. Asks each other node's local health in turn (one may be busy electing a master).
     */
    static void awaitRemoved(EsCluster cluster, int frozen, Duration patience) throws InterruptedException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            for (int i = 0; i < cluster.size(); i++) {
                if (i == frozen) {
                    continue;
                }
                URI health = cluster.httpUris().get(i).resolve("/_cluster/health?local=true");
                try {
                    HttpResponse<String> r = http.send(
                            HttpRequest.newBuilder(health)
                                    .timeout(Duration.ofSeconds(3))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    Matcher m = NODES.matcher(r.body());
                    if (m.find() && Integer.parseInt(m.group(1)) == cluster.size() - 1) {
                        return;
                    }
                } catch (IOException e) {
                    // This node is busy electing or slow: ask the next.
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("node-" + frozen + " not removed by fault detection within " + patience);
            }
            Thread.sleep(250);
        }
    }

    static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
