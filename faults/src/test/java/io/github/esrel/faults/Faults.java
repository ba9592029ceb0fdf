package io.github.esrel.faults;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.cat.shards.ShardsRecord;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

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
        List<ShardsRecord> shards = es.cat().shards(s -> s.index(index)).shards();
        Map<Integer, Integer> primaries = new HashMap<>();
        for (ShardsRecord s : shards) {
            if ("p".equals(s.prirep()) && "STARTED".equals(s.state())) {
                primaries.merge(nodeIndex(s.node()), 1, Integer::sum);
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

    static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
