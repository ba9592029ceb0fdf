package io.github.esrel.plugin.lock.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.plugin.it.Http;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.testenv.Security;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The lock store changed under held locks, on a secured node restarted with another {@code esrel.treelock.store}:
 * locks taken with esrel 0.1's one-document table ({@code table}) survive the switch to the grants store, keep
 * excluding conflicting requests, release with their tokens, and the tokens go on increasing; the grants store
 * rebuilds its table from the grant documents after a restart (a refresh and a search of the lock index, which
 * security must let the plugin do); and a node switched back to the table store grants nothing where the grants
 * store holds locks (it reads the fence as a lock on {@code /}).
 */
@EsrelTest
@Tag(AbstractTreeLockIT.NODE_RESTARTS)
class LockStoreUpgradeIT {

    private static final String STORE = "esrel.treelock.store";
    private static final Duration HEALTH_TIMEOUT = Duration.ofMinutes(2);
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Cluster
    static final EsCluster cluster = EsCluster.builder()
            .security(Security.of(s -> s.tls(false)))
            .setting(STORE, "table")
            .build();

    @Test
    void shouldKeepEveryLockThroughAChangeOfStoreAndBack() {
        assertThat(call("PUT", "/fs", "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 0}}")
                        .status())
                .isEqualTo(200);
        long shared = granted(acquire("/a", "shared", "w1"));
        long exclusive = granted(acquire("/b/c", "exclusive", "w2"));

        restart(Map.of(STORE, "grants"));

        // Read from the table document: nothing lost.
        assertThat(held()).containsExactly("/a shared w1 " + shared, "/b/c exclusive w2 " + exclusive);
        Http.Response refused = acquire("/a", "exclusive", "w3");
        assertThat(refused.status()).as("%s", refused).isEqualTo(409);
        assertThat(refused.get("conflicts").get(0).get("owner").asText()).isEqualTo("w1");
        // The first change takes the table over: its grants become documents, then the head replaces it.
        long next = granted(acquire("/d", "shared", "w4"));
        assertThat(next).isGreaterThan(exclusive);
        assertThat(release("/a", "w1", shared).status()).isEqualTo(200);

        // A restart empties the node's memory: the table is rebuilt from the grant documents and the head.
        restart(Map.of());

        assertThat(held()).containsExactly("/b/c exclusive w2 " + exclusive, "/d shared w4 " + next);
        long afterRebuild = granted(acquire("/a", "exclusive", "w1"));
        assertThat(afterRebuild).isGreaterThan(next);
        assertThat(release("/a", "w1", afterRebuild).status()).isEqualTo(200);
        Http.Response stillHeld = acquire("/b", "exclusive", "w3");
        assertThat(stillHeld.status()).as("%s", stillHeld).isEqualTo(409);

        // Back to the table store: where the grants store holds locks, it grants nothing.
        restart(Map.of(STORE, "table"));

        Http.Response fenced = acquire("/z", "shared", "w5");
        assertThat(fenced.status()).as("%s", fenced).isEqualTo(409);
        assertThat(fenced.get("conflicts").get(0).get("path").asText()).isEqualTo("/");
        assertThat(fenced.get("conflicts").get(0).get("owner").asText()).startsWith("esrel: ");
    }

    private static void restart(Map<String, String> settings) {
        cluster.stopNode(0);
        cluster.startNode(0, settings);
        cluster.waitForHealth("green", HEALTH_TIMEOUT);
    }

    private static long granted(Http.Response r) {
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        return r.get("token").asLong();
    }

    private static Http.Response acquire(String path, String mode, String owner) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("path", path);
        body.put("mode", mode);
        body.put("owner", owner);
        body.put("ttl", "10m");
        return call("POST", "/fs/_treelock/acquire", Http.json(body));
    }

    private static Http.Response release(String path, String owner, long token) {
        return call("POST", "/fs/_treelock/release", Http.json(Map.of("path", path, "owner", owner, "token", token)));
    }

    private static List<String> held() {
        Http.Response r = call("GET", "/fs/_treelock", null);
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        List<String> held = new ArrayList<>();
        for (JsonNode lock : r.get("locks")) {
            for (JsonNode holder : lock.get("holders")) {
                held.add(lock.get("path").asText() + " " + lock.get("mode").asText() + " "
                        + holder.get("owner").asText() + " "
                        + holder.get("token").asLong());
            }
        }
        return held;
    }

    /** One request as the cluster's superuser (security is on: the plugin's own access to the lock index is tested). */
    private static Http.Response call(String method, String path, String body) {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(cluster.httpUri() + path)).timeout(Duration.ofSeconds(60));
        cluster.requestHeaders().forEach(request::header);
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = response.body().isEmpty() ? null : Http.JSON.readTree(response.body());
            return new Http.Response(response.statusCode(), response.body(), json);
        } catch (Exception e) {
            throw new AssertionError(method + " " + path + ": " + e, e);
        }
    }
}
