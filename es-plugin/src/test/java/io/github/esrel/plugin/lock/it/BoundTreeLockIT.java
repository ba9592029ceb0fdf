package io.github.esrel.plugin.lock.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.plugin.it.Http;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.testenv.Security;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Grants bound to a user ({@code "bind_to_user": true}) on a node with security: only the user who acquired
 * may release or renew them, or a user Elasticsearch security allows to override bindings (the superuser, a user
 * with the cluster privilege {@code manage}, a role naming the override action alone). Everyone else, though
 * holding {@code write} on the index and seeing owner and token in the listing, gets a 403 and changes nothing.
 * Unbound grants stay as they always were: anyone with {@code write} may release them.
 */
@EsrelTest
class BoundTreeLockIT {

    private static final String PASSWORD = "bound-test-password";
    private static final String FS_WRITER = """
        {"indices": [{"names": ["fs"], "privileges": ["read", "write"]}]}""";

    @Cluster
    static final EsCluster cluster = EsCluster.builder()
            .security(Security.of(s -> s.tls(false)
                    .role("fs_writer", FS_WRITER)
                    .role("fs_operator", """
                        {"cluster": ["manage"], "indices": [{"names": ["fs"], "privileges": ["read", "write"]}]}""")
                    .role("lock_keeper", """
                        {"cluster": ["cluster:admin/esrel/treelock/override_binding"],
                         "indices": [{"names": ["fs"], "privileges": ["read", "write"]}]}""")
                    .user("alice", PASSWORD, "fs_writer")
                    .user("bob", PASSWORD, "fs_writer")
                    .user("operator", PASSWORD, "fs_operator")
                    .user("keeper", PASSWORD, "lock_keeper")))
            .build();

    private static final As ALICE = new As("alice");
    private static final As BOB = new As("bob");

    @BeforeAll
    static void createIndex() {
        Http.Response r = new As(Security.ADMIN)
                .send("PUT", "/fs", "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 0}}");
        assertThat(r.status()).as("%s", r).isEqualTo(200);
    }

    @Test
    void shouldLetOnlyTheBoundUserReleaseOrRenewAndShowTheBinding() {
        JsonNode g = ALICE.acquire("/only-alice", true);
        assertThat(g.get("bound_to").get("user").asText()).isEqualTo("alice");
        assertThat(g.get("bound_to").get("realm").asText()).isNotBlank();
        long token = g.get("token").asLong();

        JsonNode listed =
                BOB.send("GET", "/fs/_treelock?path=/only-alice", null).json();
        JsonNode holder = listed.get("locks").get(0).get("holders").get(0);
        assertThat(holder.get("owner").asText()).as("bob sees owner and token").isEqualTo("worker-alice");
        assertThat(holder.get("token").asLong()).isEqualTo(token);
        assertThat(holder.get("bound_to").get("user").asText()).isEqualTo("alice");

        for (Http.Response refused : new Http.Response[] {
            BOB.release("/only-alice", "worker-alice", token), BOB.renew("/only-alice", "worker-alice", token)
        }) {
            assertThat(refused.status()).as("%s", refused).isEqualTo(403);
            assertThat(refused.errorType()).isEqualTo("security_exception");
            assertThat(refused.get("error").get("reason").asText())
                    .contains("is bound to user [alice]")
                    .contains("cluster:admin/esrel/treelock/override_binding");
        }
        assertThat(BOB.send("GET", "/fs/_treelock?path=/only-alice", null)
                        .json()
                        .get("locks"))
                .as("still held")
                .hasSize(1);

        Http.Response renewed = ALICE.renew("/only-alice", "worker-alice", token);
        assertThat(renewed.status()).as("%s", renewed).isEqualTo(200);
        Http.Response released = ALICE.release("/only-alice", "worker-alice", token);
        assertThat(released.status()).as("%s", released).isEqualTo(200);
        assertThat(ALICE.send("GET", "/fs/_treelock?path=/only-alice", null)
                        .json()
                        .get("locks"))
                .isEmpty();
    }

    @Test
    void shouldLetTheSuperuserAndUsersAllowedTheOverrideReleaseABoundGrant() {
        for (As overrider : new As[] {new As(Security.ADMIN), new As("operator"), new As("keeper")}) {
            JsonNode g = ALICE.acquire("/overridden", true);
            long token = g.get("token").asLong();
            Http.Response renewed = overrider.renew("/overridden", "worker-alice", token);
            assertThat(renewed.status())
                    .as("%s renews: %s", overrider.user, renewed)
                    .isEqualTo(200);
            Http.Response released = overrider.release("/overridden", "worker-alice", token);
            assertThat(released.status())
                    .as("%s releases: %s", overrider.user, released)
                    .isEqualTo(200);
            assertThat(ALICE.send("GET", "/fs/_treelock?path=/overridden", null)
                            .json()
                            .get("locks"))
                    .isEmpty();
        }
    }

    @Test
    void shouldLetAnyWriterReleaseAnUnboundGrantAsBefore() {
        JsonNode g = ALICE.acquire("/unbound", false);
        assertThat(g.has("bound_to")).isFalse();
        Http.Response released =
                BOB.release("/unbound", "worker-alice", g.get("token").asLong());
        assertThat(released.status()).as("%s", released).isEqualTo(200);
    }

    /** Raw HTTP as one user of the cluster (plain HTTP, basic authentication). */
    private record As(String user) {
        private static final HttpClient CLIENT =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

        JsonNode acquire(String path, boolean bind) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("path", path);
            body.put("owner", "worker-" + user);
            body.put("bind_to_user", bind);
            Http.Response r = send("POST", "/fs/_treelock/acquire", Http.json(body));
            assertThat(r.status()).as("%s", r).isEqualTo(200);
            return r.json();
        }

        Http.Response release(String path, String owner, long token) {
            return send(
                    "POST", "/fs/_treelock/release", Http.json(Map.of("path", path, "owner", owner, "token", token)));
        }

        Http.Response renew(String path, String owner, long token) {
            return send(
                    "POST",
                    "/fs/_treelock/renew",
                    Http.json(Map.of("path", path, "owner", owner, "token", token, "ttl", "30s")));
        }

        Http.Response send(String method, String path, String body) {
            String password = Security.ADMIN.equals(user) ? null : PASSWORD;
            HttpRequest.Builder request =
                    HttpRequest.newBuilder(cluster.httpUri().resolve(path)).timeout(Duration.ofSeconds(60));
            if (password == null) {
                cluster.requestHeaders().forEach(request::header);
            } else {
                String basic =
                        Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
                request.header("Authorization", "Basic " + basic);
            }
            if (body != null) {
                request.header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofString(body));
            } else {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            }
            try {
                HttpResponse<String> r =
                        CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                return new Http.Response(
                        r.statusCode(),
                        r.body(),
                        r.body().isEmpty() ? Http.JSON.missingNode() : Http.JSON.readTree(r.body()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
