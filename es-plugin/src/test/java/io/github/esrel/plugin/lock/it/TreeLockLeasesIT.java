package io.github.esrel.plugin.lock.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.plugin.it.Http;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Tree locks over time on a real 3-node cluster: a dead holder's lease expiring, renewal, release by the wrong owner
 * or token, requests sent again with their grant id, a wait granted when the holder releases, and a wait whose client
 * goes away.
 */
@EsrelTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TreeLockLeasesIT extends AbstractTreeLockIT {

    @Cluster
    static final EsCluster cluster = threeNodes();

    @Test
    @Order(1)
    void shouldFreeTheLocksOfADeadHolderWhenItsLeaseExpires() {
        createIndex("expiry");
        // The dead holder: never renews, never releases.
        JsonNode dead = granted(locks().acquire("expiry", "/dir/sub/file.txt", "exclusive", "dead", "1500ms", null));
        assertConflicts(locks().acquire("expiry", "/dir", "exclusive", "w2"), dead);
        // Waiting for the directory succeeds once the lease is over: its ancestor locks went with it.
        JsonNode dir = granted(locks().acquire("expiry", "/dir", "exclusive", "w2", "30s", "30s"));
        assertThat(System.currentTimeMillis())
                .isGreaterThanOrEqualTo(dead.get("expires_at_millis").asLong() - 1000);
        assertThat(dir.get("token").asLong()).isGreaterThan(dead.get("token").asLong());
        assertThat(paths(locks().list("expiry", null))).containsExactly("/dir");
        // The dead holder's grant is gone: release and renew say so.
        String path = "/dir/sub/file.txt";
        assertError(
                locks().release("expiry", path, "dead", dead.get("token").asLong()),
                404,
                "resource_not_found_exception");
        assertError(
                locks().renew("expiry", path, "dead", dead.get("token").asLong(), "30s"),
                404,
                "resource_not_found_exception");
        release("expiry", dir);
        // The file itself is free again too.
        release("expiry", grant("expiry", path, "exclusive", "w3"));
    }

    @Test
    @Order(2)
    void shouldRenewALease() {
        createIndex("renew");
        JsonNode g = granted(locks().acquire("renew", "/r", "exclusive", "w1", "2s", null));
        long token = g.get("token").asLong();
        Http.Response renewed = locks().renew("renew", "/r", "w1", token, "60s");
        assertThat(renewed.status()).as("%s", renewed).isEqualTo(200);
        assertThat(fieldNames(renewed.json())).containsExactly("expires_at", "expires_at_millis");
        long expires = renewed.get("expires_at_millis").asLong();
        assertThat(Instant.parse(renewed.get("expires_at").asText()).toEpochMilli())
                .isEqualTo(expires);
        assertThat(expires).isGreaterThan(g.get("expires_at_millis").asLong() + 50_000);
        // Still held well after the original lease would have ended: a 3 s wait gives up.
        assertConflicts(locks().acquire("renew", "/r", "shared", "w2", null, "3s"), g);
        assertThat(locks().list("renew", "/r")
                        .get("locks")
                        .get(0)
                        .get("holders")
                        .get(0)
                        .get("expires_at_millis")
                        .asLong())
                .isEqualTo(expires);
        // Renew without ttl: 60 s from now.
        Http.Response again = locks().renew("renew", "/r", "w1", token, null);
        assertThat(again.status()).as("%s", again).isEqualTo(200);
        assertThat(again.get("expires_at_millis").asLong() - System.currentTimeMillis())
                .isBetween(50_000L, 61_000L);
        // Only the holder can renew.
        assertThat(assertError(locks().renew("renew", "/r", "w2", token, "10s"), 409, "status_exception"))
                .contains("held by owner [w1]");
        assertError(locks().renew("renew", "/r", "w1", token + 1, "10s"), 409, "status_exception");
        assertError(locks().renew("renew", "/elsewhere", "w1", token, "10s"), 404, "resource_not_found_exception");
        release("renew", g);
        assertError(locks().renew("renew", "/r", "w1", token, "10s"), 404, "resource_not_found_exception");
    }

    @Test
    @Order(3)
    void shouldRefuseReleaseByAnotherOwnerOrToken() {
        createIndex("release");
        JsonNode g = grant("release", "/x/y", "exclusive", "w1");
        long token = g.get("token").asLong();
        assertThat(assertError(locks().release("release", "/x/y", "w2", token), 409, "status_exception"))
                .isEqualTo("the lock on [/x/y] in [release] is held by owner [w1] token [" + token
                        + "], not by owner [w2] with token [" + token + "]");
        assertError(locks().release("release", "/x/y", "w1", token - 1), 409, "status_exception");
        // The ancestors are only implied: nothing is held on /x itself.
        assertThat(assertError(locks().release("release", "/x", "w1", token), 404, "resource_not_found_exception"))
                .contains("no live lock on [/x]");
        assertError(locks().release("release", "/never", "w1", 12345), 404, "resource_not_found_exception");
        assertThat(paths(locks().list("release", null))).containsExactly("/x/y");
        release("release", g);
        assertError(locks().release("release", "/x/y", "w1", token), 404, "resource_not_found_exception");
    }

    /**
     * An acquire and a release whose answers were lost, sent again to other nodes with their grant id: the acquire is
     * answered with the grant the first copy got, the release with released. A node that has to rebuild its table
     * (the rounds it missed are more than the head keeps) still knows the released id from its document; a copy of
     * the acquire arriving after the release grants nothing. A grant id that is not one is a 400.
     */
    @Test
    @Order(4)
    void shouldRecogniseAnAcquireAndAReleaseSentAgainToAnotherNodeByTheirGrantId() {
        createIndex("resent");
        List<Locks> nodes =
                cluster.httpUris().stream().map(u -> new Locks(new Http(u))).toList();
        String id = "6c1d2f9e-1b0a-4c3e-8f57-2a9b8c7d6e5f";
        JsonNode first = granted(nodes.get(0).acquireWithId("resent", "/a/b", "w1", id));
        JsonNode again = granted(nodes.get(1).acquireWithId("resent", "/a/b", "w1", id));
        assertThat(again.get("token").asLong())
                .as("the same grant")
                .isEqualTo(first.get("token").asLong());
        assertThat(again.get("expires_at_millis").asLong())
                .isEqualTo(first.get("expires_at_millis").asLong());
        assertThat(paths(locks().list("resent", null))).containsExactly("/a/b");
        assertThat(assertError(
                        nodes.get(2).acquireWithId("resent", "/a/c", "w1", id), 400, "illegal_argument_exception"))
                .contains("already identifies the exclusive lock on [/a/b] of owner [w1]");

        long token = first.get("token").asLong();
        for (Locks node : nodes) {
            Http.Response r = node.releaseWithId("resent", "/a/b", "w1", token, id);
            assertThat(r.status()).as("%s", r).isEqualTo(200);
            assertThat(r.raw()).isEqualTo("{\"released\":true}");
        }
        // Rounds on one node, more than a head keeps: the others rebuild their tables from the documents.
        for (int i = 0; i < 10; i++) { // 20 rounds: a head keeps 8
            release("resent", grant("resent", "/other", "exclusive", "w2"));
        }
        for (Locks node : nodes) {
            Http.Response r = node.releaseWithId("resent", "/a/b", "w1", token, id);
            assertThat(r.status()).as("%s", r).isEqualTo(200);
            assertThat(assertError(node.acquireWithId("resent", "/a/b", "w1", id), 400, "illegal_argument_exception"))
                    .contains("grant_id [" + id + "] was released");
        }
        assertError(locks().release("resent", "/a/b", "w1", token), 404, "resource_not_found_exception");

        // By grant id alone: an acquire whose outcome stayed unknown is settled, granted or not.
        String unknown = "d9b1e1b2-5a55-4d0a-a1e6-0b8a2f4c3e21";
        JsonNode settled = granted(nodes.get(2).acquireWithId("resent", "/u", "w3", unknown));
        assertThat(nodes.get(0).releaseWithId("resent", "/u", "w3", 0, unknown).status())
                .isEqualTo(200);
        assertThat(nodes.get(1).releaseWithId("resent", "/u", "w3", 0, unknown).status())
                .isEqualTo(200);
        assertThat(paths(locks().list("resent", null))).isEmpty();
        String never = "8e0f4c8a-7d3b-4a1e-9c2f-5b6a7d8e9f01";
        assertThat(nodes.get(1).releaseWithId("resent", "/n", "w3", 0, never).status())
                .isEqualTo(200);
        assertError(nodes.get(2).acquireWithId("resent", "/n", "w3", never), 400, "illegal_argument_exception");
        assertThat(settled.get("token").asLong()).isGreaterThan(token);

        assertThat(assertError(
                        locks().acquireWithId("resent", "/a", "w1", "short"),
                        400,
                        "action_request_validation_exception"))
                .contains("grant_id must be 16 to 128 characters of [A-Za-z0-9_-]");
        assertThat(assertError(
                        locks().releaseWithId("resent", "/a", "w1", 0, "not a grant id at all"),
                        400,
                        "action_request_validation_exception"))
                .contains("grant_id must be");
        Http.Response numeric = http().post(
                        "/resent/_treelock/acquire",
                        "{\"path\": \"/a\", \"owner\": \"w\", \"grant_id\": 12345678901234567}");
        assertError(numeric, 400, "x_content_parse_exception");
    }

    @Test
    @Order(5)
    void shouldGrantAWaitingRequestWhenTheHolderReleases() throws Exception {
        createIndex("wait");
        JsonNode holder = grant("wait", "/w/file", "exclusive", "w1");
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<Http.Response> waiting =
                    executor.submit(() -> locks().acquire("wait", "/w", "exclusive", "w2", "30s", "60s"));
            awaitTrue("the waiting acquire to reach the node", Duration.ofSeconds(30), () -> runningAcquires() == 1);
            assertThat(waiting.isDone()).isFalse();
            release("wait", holder);
            JsonNode g = granted(waiting.get(60, TimeUnit.SECONDS));
            assertThat(g.get("owner").asText()).isEqualTo("w2");
            assertThat(g.get("token").asLong())
                    .isGreaterThan(holder.get("token").asLong());

            // A wait that runs out is a 409 with the conflicts, not before the wait is over.
            long start = System.nanoTime();
            assertConflicts(locks().acquire("wait", "/w/x", "shared", "w3", null, "400ms"), g);
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(400));
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    @Order(6)
    void shouldStopWaitingWhenTheClientGoesAway() throws Exception {
        createIndex("gone");
        JsonNode holder = grant("gone", "/g", "exclusive", "w1");
        String body = "{\"path\": \"/g\", \"owner\": \"ghost\", \"wait\": \"60s\"}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        try (Socket socket =
                new Socket(cluster.httpUri().getHost(), cluster.httpUri().getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(
                    ("POST /gone/_treelock/acquire HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                                    + bytes.length + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            awaitTrue("the waiting acquire to reach the node", Duration.ofSeconds(30), () -> runningAcquires() == 1);
        }
        // The closed connection cancels the request, which ends its wait.
        awaitTrue("the abandoned acquire to end", Duration.ofSeconds(30), () -> runningAcquires() == 0);
        release("gone", holder);
        // Nobody is left to receive a grant, so none may be made.
        JsonNode probe = grant("gone", "/g", "exclusive", "w3");
        release("gone", probe);
        assertThat(paths(locks().list("gone", null))).isEmpty();
    }

    private static int runningAcquires() {
        Http.Response tasks = http().get("/_tasks?actions=" + Http.enc("indices:data/write/esrel/treelock/acquire"));
        int n = 0;
        for (JsonNode node : tasks.get("nodes")) {
            n += node.get("tasks").size();
        }
        return n;
    }
}
