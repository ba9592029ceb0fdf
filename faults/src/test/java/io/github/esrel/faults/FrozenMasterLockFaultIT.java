package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The outage measured from outside before the plugin's truthful errors: the node that is both the elected
 * master and the holder of the lock index's primary is frozen for ~40 s. Every acquire, renew, release and
 * list sent to the other two nodes meanwhile must answer what the REST contract documents: a success, a 4xx
 * of the lock protocol (busy, lease gone), or the 503 {@code status_exception} "gave up after trying for …
 * the lock index … was unavailable" that names the last cause. Never a 502 {@code node_not_connected_exception}
 * (the transport error leaking out), never "changed concurrently on every attempt" (which did not happen),
 * never any other 5xx. After the thaw, locks are granted again with tokens above every token seen before.
 * With the suite's fault detection (two checks of 5 s) the cluster fails over within the plugin's 30 s of
 * retrying, so the calls mostly wait and succeed; with the default (three of 10 s) some give up with the 503
 * (es-plugin's {@code TreeLockFailoverIT} provokes that 503 with every copy of the lock index gone). Either is
 * documented; the test checks that nothing else comes back and that the freeze was felt (a call waited
 * out fault detection).
 *
 * <p>The master is moved onto the primary's node first, with voting configuration exclusions of the other two
 * nodes, which are then cleared (and the voting configuration awaited back to three nodes, so the two
 * survivors can elect a master while the third is frozen).
 */
@EsrelTest
class FrozenMasterLockFaultIT {

    private static final String LOCK_INDEX = ".esrel-treelocks-1";
    private static final String NAMESPACE = "frozen-master-locks";
    private static final Duration FREEZE = Duration.ofSeconds(40);
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final int WORKERS = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Cluster
    static final EsCluster cluster = FaultCluster.build();

    /** The longest any request took to be answered. */
    private final AtomicLong slowestMs = new AtomicLong();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void shouldAnswerOnlyTheDocumentedOutcomesWhileTheMasterHoldingTheLockPrimaryIsFrozen() throws Exception {
        URI any = cluster.httpUri();
        // The namespace index must exist (the plugin authorizes a lock by it); one replica, like the lock index.
        Answer created = send(
                any,
                "PUT",
                "/" + NAMESPACE,
                Map.of("settings", Map.of("number_of_shards", 1, "number_of_replicas", 1)));
        assertThat(created.status()).as("%s", created).isEqualTo(200);
        cluster.waitForHealth("green", PATIENCE);
        long tokenBefore = acquireAndRelease(any, "/before");
        int victim = cluster.primaryNode(LOCK_INDEX, 0);
        makeMaster(victim);
        assertThat(cluster.masterNode()).isEqualTo(victim);
        assertThat(cluster.primaryNode(LOCK_INDEX, 0)).isEqualTo(victim);
        List<URI> survivors = new ArrayList<>(cluster.httpUris());
        survivors.remove(victim);

        ConcurrentLinkedQueue<String> undocumented = new ConcurrentLinkedQueue<>();
        Map<String, AtomicLong> answers = new TreeMap<>();
        AtomicLong maxToken = new AtomicLong(tokenBefore);
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
        List<Future<?>> workers = new ArrayList<>();
        long frozenAt;
        try {
            for (int w = 0; w < WORKERS; w++) {
                URI node = survivors.get(w % survivors.size());
                String owner = "worker-" + w;
                String path = "/w" + (w % 2); // two workers per path: some acquires find it busy
                workers.add(pool.submit(() -> {
                    while (!stop.get()) {
                        cycle(node, path, owner, answers, undocumented, maxToken);
                    }
                    return null;
                }));
            }
            Thread.sleep(2_000);
            cluster.freezeNode(victim);
            frozenAt = System.nanoTime();
            Thread.sleep(FREEZE.toMillis());
        } finally {
            cluster.thawNode(victim);
        }
        try {
            long thawedAt = System.nanoTime();
            cluster.waitForHealth("green", PATIENCE);
            // The workers go on through the rejoin, until their requests sent after the thaw have answered.
            Thread.sleep(5_000);
            System.out.printf(
                    "frozen master + lock primary node-%d for %d s, green %d s after the thaw%n",
                    victim, (thawedAt - frozenAt) / 1_000_000_000, Faults.millisSince(thawedAt) / 1000);
        } finally {
            stop.set(true);
            pool.shutdown();
            assertThat(pool.awaitTermination(3, TimeUnit.MINUTES))
                    .as("workers stop")
                    .isTrue();
        }
        for (Future<?> f : workers) {
            f.get();
        }

        long after = acquireAndRelease(cluster.httpUri(), "/after");
        long operations = answers.values().stream().mapToLong(AtomicLong::get).sum();
        Figures.row(
                "master holding the lock primary frozen " + FREEZE.toSeconds() + " s",
                "tree lock REST answers (plugin)",
                operations,
                undocumented.size(),
                -1,
                "answers by kind " + answers + "; slowest answer " + slowestMs.get() + " ms; token after the thaw "
                        + after + " > " + maxToken.get());
        assertThat(undocumented)
                .as("answers the REST contract does not document")
                .isEmpty();
        assertThat(slowestMs.get())
                .as("the freeze was felt: some request waited out fault detection (two checks of 5 s)")
                .isGreaterThanOrEqualTo(5_000);
        assertThat(after).as("tokens keep increasing").isGreaterThan(maxToken.get());
    }

    /** One acquire, renew, release and list; every answer classified. */
    private void cycle(
            URI node,
            String path,
            String owner,
            Map<String, AtomicLong> answers,
            ConcurrentLinkedQueue<String> undocumented,
            AtomicLong maxToken) {
        Answer acquired = send(
                node,
                "POST",
                "/" + NAMESPACE + "/_treelock/acquire",
                Map.of("path", path, "mode", "exclusive", "owner", owner, "ttl", "60s"));
        classify("acquire", acquired, answers, undocumented);
        if (acquired.status() == 200 && acquired.body().path("acquired").asBoolean()) {
            long token = acquired.body().path("token").asLong();
            maxToken.accumulateAndGet(token, Math::max);
            Map<String, Object> lock = Map.of("path", path, "owner", owner, "token", token);
            classify("renew", send(node, "POST", "/" + NAMESPACE + "/_treelock/renew", lock), answers, undocumented);
            classify(
                    "release", send(node, "POST", "/" + NAMESPACE + "/_treelock/release", lock), answers, undocumented);
        }
        classify("list", send(node, "GET", "/" + NAMESPACE + "/_treelock", null), answers, undocumented);
    }

    private static void classify(
            String call, Answer a, Map<String, AtomicLong> answers, ConcurrentLinkedQueue<String> undocumented) {
        String kind;
        if (a.status() < 500 && a.status() != 0) {
            kind = a.status() + "";
        } else if (truthfulUnavailable(a)) {
            kind = "503 unavailable";
        } else {
            kind = "undocumented " + a.status();
            undocumented.add(call + ": " + a);
        }
        synchronized (answers) {
            answers.computeIfAbsent(call + " " + kind, k -> new AtomicLong()).incrementAndGet();
        }
    }

    /** The README's 503: the plugin gave up on a lock index it could not reach, and says why. */
    private static boolean truthfulUnavailable(Answer a) {
        JsonNode error = a.body().path("error");
        String reason = error.path("reason").asText();
        return a.status() == 503
                && "status_exception".equals(error.path("type").asText())
                && reason.startsWith("gave up after trying for ")
                && reason.contains("the lock index [" + LOCK_INDEX + "] was unavailable")
                && !reason.contains("concurrently")
                && error.has("caused_by");
    }

    /** Moves the elected master onto {@code node}: exclude the others from voting, then let them back in. */
    private void makeMaster(int node) throws Exception {
        if (cluster.masterNode() == node) {
            return;
        }
        URI on = cluster.httpUris().get(node);
        List<String> others = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            if (i != node) {
                others.add("node-" + i);
            }
        }
        Answer excluded = send(
                on,
                "POST",
                "/_cluster/voting_config_exclusions?timeout=60s&node_names=" + String.join(",", others),
                null);
        assertThat(excluded.status()).as("%s", excluded).isEqualTo(200);
        Faults.await("node-" + node + " to be elected", 120, () -> masterIs(node));
        Answer cleared = send(on, "DELETE", "/_cluster/voting_config_exclusions?wait_for_removal=false", null);
        assertThat(cleared.status()).as("%s", cleared).isEqualTo(200);
        Faults.await("the voting configuration to hold all three nodes again", 120, () -> {
            Answer state = send(on, "GET", "/_cluster/state/metadata?filter_path=metadata.cluster_coordination", null);
            JsonNode coordination = state.body().path("metadata").path("cluster_coordination");
            return coordination.path("last_committed_config").size() == cluster.size()
                    && coordination.path("voting_config_exclusions").isEmpty();
        });
    }

    private boolean masterIs(int node) {
        try {
            return cluster.masterNode() == node;
        } catch (RuntimeException e) {
            return false; // between two masters
        }
    }

    private long acquireAndRelease(URI node, String path) {
        Answer a = send(
                node,
                "POST",
                "/" + NAMESPACE + "/_treelock/acquire",
                Map.of("path", path, "mode", "exclusive", "owner", "check", "wait", "30s"));
        assertThat(a.status()).as("%s", a).isEqualTo(200);
        assertThat(a.body().path("acquired").asBoolean()).as("%s", a).isTrue();
        long token = a.body().path("token").asLong();
        Answer r = send(
                node,
                "POST",
                "/" + NAMESPACE + "/_treelock/release",
                Map.of("path", path, "owner", "check", "token", token));
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        return token;
    }

    /** An HTTP answer; status 0 when no answer came (the request timed out or the connection failed). */
    private record Answer(int status, JsonNode body, String raw) {
        @Override
        public String toString() {
            return status + " " + raw;
        }
    }

    private Answer send(URI node, String method, String path, Object body) {
        long start = System.nanoTime();
        try {
            return sendTimed(node, method, path, body);
        } finally {
            slowestMs.accumulateAndGet(Faults.millisSince(start), Math::max);
        }
    }

    private Answer sendTimed(URI node, String method, String path, Object body) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(node.resolve(path))
                    .timeout(Duration.ofSeconds(120))
                    .header("Content-Type", "application/json");
            request.method(
                    method,
                    body == null
                            ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
            HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json;
            try {
                json = JSON.readTree(r.body());
            } catch (IOException e) {
                json = JSON.missingNode();
            }
            return new Answer(r.statusCode(), json == null ? JSON.missingNode() : json, r.body());
        } catch (IOException e) {
            return new Answer(0, JSON.missingNode(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, JSON.missingNode(), "interrupted");
        }
    }
}
