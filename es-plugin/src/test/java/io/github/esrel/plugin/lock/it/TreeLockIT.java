package io.github.esrel.plugin.lock.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.plugin.it.Http;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The tree lock API against a real 3-node cluster: every rule of the semantics and of the REST contract,
 * leases, renewal, fencing tokens, waits, the system index, hostile input, contention, and last the loss of
 * the node holding the lock index's primary. One cluster for all, because starting nodes is what costs time.
 */
@EsrelTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TreeLockIT {

    @Cluster
    // The start timeout comes from the build (esrel.testenv.start-timeout): three nodes on a shared 2-core
    // machine have needed almost 5 minutes.
    static final EsCluster cluster = EsCluster.builder()
            .nodes(3)
            // The 503 test waits this long for its answers; 10 s still outlasts a primary failover after a kill.
            .setting("esrel.treelock.retry_timeout", "10s")
            .build();

    /**
     * The tests that kill nodes holding the lock index. They run on the default line, with the fault suite;
     * run-tests leaves them out of the other lines' passes ({@code -DexcludedGroups=node-faults}), which run the
     * rest of this class, the REST contract and its errors.
     */
    static final String NODE_FAULTS = "node-faults";

    /**
     * The tests that restart nodes with other settings (the lock store changed under held locks): line-independent
     * code, run on the default line only, as {@link #NODE_FAULTS}.
     */
    static final String NODE_RESTARTS = "node-restarts";

    /**
     * The tests that prove line-independent code under sustained load (threads racing for minutes of CPU): run on the
     * default line only, as {@link #NODE_FAULTS}; the other lines' passes run the rest of the class.
     */
    static final String LOAD = "load";

    private static final String LOCK_INDEX = ".esrel-treelocks-1";
    private static final String[] PATHS = {"/", "/a", "/a", "/a/x", "/a/x", "/a/y", "/a/x/1", "/b", "/b/x", "/b/y"};

    private static Locks locks;

    static Locks locks() {
        if (locks == null) {
            locks = new Locks(new Http(cluster.httpUri()));
        }
        return locks;
    }

    static Http http() {
        return locks().http();
    }

    private static void createIndex(String name) {
        Http.Response r =
                http().put("/" + name, "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 0}}");
        assertThat(r.status()).as("%s", r).isEqualTo(200);
    }

    private static JsonNode granted(Http.Response r) {
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        assertThat(r.get("acquired").asBoolean()).as("%s", r).isTrue();
        return r.json();
    }

    private static JsonNode grant(String index, String path, String mode, String owner) {
        return granted(locks().acquire(index, path, mode, owner));
    }

    /** Asserts a 409 whose conflicts are exactly these grants (path, mode, owner), in any order. */
    private static void assertConflicts(Http.Response r, JsonNode... blockers) {
        assertThat(r.status()).as("%s", r).isEqualTo(409);
        assertThat(fieldNames(r.json())).containsExactly("acquired", "conflicts");
        assertThat(r.get("acquired").asBoolean()).isFalse();
        List<String> conflicts = new ArrayList<>();
        for (JsonNode c : r.get("conflicts")) {
            assertThat(fieldNames(c)).containsExactly("path", "mode", "owner", "expires_at");
            Instant.parse(c.get("expires_at").asText());
            conflicts.add(c.get("path").asText() + " " + c.get("mode").asText() + " "
                    + c.get("owner").asText());
        }
        List<String> expected = new ArrayList<>();
        for (JsonNode b : blockers) {
            expected.add(b.get("path").asText() + " " + b.get("mode").asText() + " "
                    + b.get("owner").asText());
        }
        assertThat(conflicts).as("%s", r).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static void release(String index, JsonNode grant) {
        Http.Response r = locks().release(
                        index,
                        grant.get("path").asText(),
                        grant.get("owner").asText(),
                        grant.get("token").asLong());
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        assertThat(r.raw()).isEqualTo("{\"released\":true}");
    }

    private static String assertError(Http.Response r, int status, String type) {
        assertThat(r.status()).as("%s", r).isEqualTo(status);
        assertThat(r.get("status").asInt()).as("%s", r).isEqualTo(status);
        assertThat(r.errorType()).as("%s", r).isEqualTo(type);
        return r.get("error").get("reason").asText();
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static void awaitTrue(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (condition.getAsBoolean() == false) {
            assertThat(System.nanoTime() - deadline)
                    .as("timed out waiting for %s", what)
                    .isNegative();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private static int runningAcquires() {
        Http.Response tasks = http().get("/_tasks?actions=" + Http.enc("indices:data/write/esrel/treelock/acquire"));
        int n = 0;
        for (JsonNode node : tasks.get("nodes")) {
            n += node.get("tasks").size();
        }
        return n;
    }

    @Test
    @Order(1)
    void shouldAnswerAGrantInTheContractShape() {
        createIndex("shape");
        long before = System.currentTimeMillis();
        Http.Response r = locks().acquire("shape", "/a/b/c.txt", "exclusive", "worker-7", "30s", "5s");
        JsonNode g = granted(r);
        assertThat(fieldNames(g))
                .containsExactly(
                        "acquired", "index", "path", "mode", "owner", "token", "expires_at", "expires_at_millis");
        assertThat(g.get("index").asText()).isEqualTo("shape");
        assertThat(g.get("path").asText()).isEqualTo("/a/b/c.txt");
        assertThat(g.get("mode").asText()).isEqualTo("exclusive");
        assertThat(g.get("owner").asText()).isEqualTo("worker-7");
        assertThat(g.get("token").isIntegralNumber()).isTrue();
        assertThat(g.get("token").asLong()).isPositive();
        long expires = g.get("expires_at_millis").asLong();
        assertThat(Instant.parse(g.get("expires_at").asText()).toEpochMilli()).isEqualTo(expires);
        assertThat(expires).isBetween(before + 30_000 - 5_000, System.currentTimeMillis() + 30_000 + 5_000);

        // mode defaults to exclusive, ttl to 60 s.
        JsonNode d = granted(locks().acquire("shape", "/d", null, "w"));
        assertThat(d.get("mode").asText()).isEqualTo("exclusive");
        assertThat(d.get("expires_at_millis").asLong() - System.currentTimeMillis())
                .isBetween(50_000L, 61_000L);
    }

    @Test
    @Order(2)
    void shouldLockPathsWithSharedLocksOnTheirAncestors() {
        createIndex("rules");
        JsonNode file = grant("rules", "/clinton/projects/elasticsearch/README.txt", "exclusive", "w1");
        // An exclusive lock on a directory conflicts with any lock below it.
        assertConflicts(locks().acquire("rules", "/clinton", "exclusive", "w2"), file);
        assertConflicts(locks().acquire("rules", "/clinton/projects/elasticsearch", "exclusive", "w2"), file);
        assertConflicts(locks().acquire("rules", "/", "exclusive", "w2"), file);
        // Exclusive conflicts with everything on the same path.
        assertConflicts(locks().acquire("rules", "/clinton/projects/elasticsearch/README.txt", "shared", "w2"), file);
        assertConflicts(
                locks().acquire("rules", "/clinton/projects/elasticsearch/README.txt", "exclusive", "w1"), file);
        // The ancestors are only shared: shared locks on them, and other files, are fine.
        JsonNode dir = grant("rules", "/clinton", "shared", "w2");
        JsonNode sibling = grant("rules", "/clinton/projects/elasticsearch/NOTICE.txt", "exclusive", "w3");
        JsonNode root = grant("rules", "/", "shared", "w4");
        // Shared is compatible with shared: several holders on one path.
        JsonNode dir2 = grant("rules", "/clinton", "shared", "w5");
        assertConflicts(locks().acquire("rules", "/clinton", "exclusive", "w6"), file, dir, sibling, dir2);
        assertConflicts(locks().acquire("rules", "/", "exclusive", "w6"), file, dir, sibling, root, dir2);
        for (JsonNode g : List.of(file, dir, sibling, root, dir2)) {
            release("rules", g);
        }

        // A lock below an exclusively locked directory is refused; a sibling with a similar name is not below.
        JsonNode exclusiveDir = grant("rules", "/a/b", "exclusive", "w1");
        assertConflicts(locks().acquire("rules", "/a/b/c", "shared", "w2"), exclusiveDir);
        assertConflicts(locks().acquire("rules", "/a/b/c/d/e.txt", "exclusive", "w2"), exclusiveDir);
        assertConflicts(locks().acquire("rules", "/a", "exclusive", "w2"), exclusiveDir);
        release("rules", grant("rules", "/a/bc", "exclusive", "w2"));
        release("rules", grant("rules", "/a", "shared", "w2"));
        release("rules", exclusiveDir);
        // Releasing a path released the shared ancestor locks it took.
        release("rules", grant("rules", "/a", "exclusive", "w2"));
    }

    @Test
    @Order(3)
    void shouldMakeAnExclusiveRootTheGlobalLock() {
        createIndex("global");
        JsonNode global = grant("global", "/", "exclusive", "w1");
        for (String path : List.of("/", "/a", "/a/b/c")) {
            for (String mode : List.of("shared", "exclusive")) {
                assertConflicts(locks().acquire("global", path, mode, "w2"), global);
            }
        }
        release("global", global);
        release("global", grant("global", "/a/b/c", "shared", "w2"));
    }

    @Test
    @Order(4)
    void shouldKeepNamespacesPerIndex() {
        createIndex("fs");
        createIndex("photos");
        JsonNode fs = grant("fs", "/", "exclusive", "w1");
        JsonNode photos = grant("photos", "/", "exclusive", "w1");
        assertThat(photos.get("index").asText()).isEqualTo("photos");
        assertThat(locks().list("photos", null).get("locks")).hasSize(1);
        // A token of one index means nothing in the other.
        assertError(locks().release("photos", "/", "w1", fs.get("token").asLong()), 409, "status_exception");
        release("fs", fs);
        assertConflicts(locks().acquire("photos", "/x", "shared", "w2"), photos);
        release("photos", photos);
    }

    @Test
    @Order(5)
    void shouldKeepSeveralHoldersOfASharedPath() {
        createIndex("holders");
        JsonNode a = grant("holders", "/d", "shared", "w1");
        JsonNode b = grant("holders", "/d", "shared", "w2");
        JsonNode c = grant("holders", "/d", "shared", "w1"); // the same owner again: a distinct grant
        assertThat(Set.of(
                        a.get("token").asLong(),
                        b.get("token").asLong(),
                        c.get("token").asLong()))
                .hasSize(3);
        JsonNode listed = locks().list("holders", null).json();
        assertThat(listed.get("index").asText()).isEqualTo("holders");
        assertThat(listed.get("locks")).hasSize(1);
        JsonNode lock = listed.get("locks").get(0);
        assertThat(fieldNames(lock)).containsExactly("path", "mode", "holders");
        assertThat(lock.get("path").asText()).isEqualTo("/d");
        assertThat(lock.get("mode").asText()).isEqualTo("shared");
        assertThat(lock.get("holders")).hasSize(3);
        for (JsonNode h : lock.get("holders")) {
            assertThat(fieldNames(h)).containsExactly("owner", "token", "expires_at", "expires_at_millis");
        }
        assertThat(lock.get("holders").get(0).get("token").asLong())
                .isLessThan(lock.get("holders").get(1).get("token").asLong());
        release("holders", c);
        assertThat(locks().list("holders", "/d").get("locks").get(0).get("holders"))
                .hasSize(2);
        assertConflicts(locks().acquire("holders", "/d", "exclusive", "w3"), a, b);
    }

    @Test
    @Order(6)
    void shouldListLiveLocksUnderAPrefix() {
        createIndex("listing");
        grant("listing", "/l/a", "shared", "w1");
        grant("listing", "/l/a/b", "exclusive", "w2");
        grant("listing", "/l/ab", "exclusive", "w3");
        grant("listing", "/m", "shared", "w4");
        granted(locks().acquire("listing", "/l/short", "exclusive", "w5", "1ms", null));
        assertThat(paths(locks().list("listing", "/l/a"))).containsExactly("/l/a", "/l/a/b");
        assertThat(paths(locks().list("listing", "/l"))).containsExactly("/l/a", "/l/a/b", "/l/ab");
        assertThat(paths(locks().list("listing", "/"))).containsExactly("/l/a", "/l/a/b", "/l/ab", "/m");
        assertThat(paths(locks().list("listing", null))).containsExactly("/l/a", "/l/a/b", "/l/ab", "/m");
        assertThat(paths(locks().list("listing", "/nothing/here"))).isEmpty();
        // An index that never had a lock has an empty table.
        createIndex("never-locked");
        assertThat(locks().list("never-locked", null).raw()).isEqualTo("{\"index\":\"never-locked\",\"locks\":[]}");
        assertThat(assertError(locks().list("listing", "l"), 400, "action_request_validation_exception"))
                .contains("must be absolute");
        assertThat(assertError(http().get("/listing/_treelock?prefix=/l"), 400, "illegal_argument_exception"))
                .contains("unrecognized parameter");

        // Pages of whole paths: each page's "next" is the "after" of the following one, the last has none.
        Http.Response first = http().get("/listing/_treelock?size=3");
        assertThat(paths(first)).containsExactly("/l/a", "/l/a/b", "/l/ab");
        assertThat(first.get("next").asText()).isEqualTo("/l/ab");
        Http.Response last = http().get("/listing/_treelock?size=3&after=" + Http.enc("/l/ab"));
        assertThat(paths(last)).containsExactly("/m");
        assertThat(last.json().has("next")).isFalse();
        assertThat(paths(http().get("/listing/_treelock?path=/l&size=1&after=" + Http.enc("/l/a"))))
                .containsExactly("/l/a/b");
        assertThat(assertError(http().get("/listing/_treelock?size=0"), 400, "action_request_validation_exception"))
                .contains("size must be between 1 and 10000 paths, got 0");
        assertThat(assertError(http().get("/listing/_treelock?size=ten"), 400, "illegal_argument_exception"))
                .contains("size");
        assertThat(assertError(http().get("/listing/_treelock?after=l"), 400, "action_request_validation_exception"))
                .contains("after [l] must be absolute");
    }

    private static List<String> paths(Http.Response r) {
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        List<String> paths = new ArrayList<>();
        r.get("locks").forEach(l -> paths.add(l.get("path").asText()));
        return paths;
    }

    @Test
    @Order(7)
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
    @Order(8)
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
    @Order(9)
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
    @Order(9)
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
    @Order(10)
    void shouldIssueStrictlyIncreasingTokens() {
        createIndex("tokens");
        long last = 0;
        for (int i = 0; i < 40; i++) {
            String path = i % 2 == 0 ? "/same" : "/other/" + i;
            JsonNode g = grant("tokens", path, i % 3 == 0 ? "shared" : "exclusive", "w" + (i % 4));
            assertThat(g.get("token").asLong()).isGreaterThan(last);
            last = g.get("token").asLong();
            release("tokens", g);
        }
    }

    @Test
    @Order(11)
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
    @Order(12)
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

    @Test
    @Order(13)
    void shouldRequireAnExistingIndex() {
        assertError(locks().acquire("missing", "/a", "exclusive", "w1"), 404, "index_not_found_exception");
        assertError(locks().release("missing", "/a", "w1", 1), 404, "index_not_found_exception");
        assertError(locks().renew("missing", "/a", "w1", 1, "1s"), 404, "index_not_found_exception");
        assertError(locks().list("missing", null), 404, "index_not_found_exception");
        assertError(locks().acquire("miss*", "/a", "exclusive", "w1"), 404, "index_not_found_exception");
        // An alias of one index stands for it; an alias of several is refused.
        createIndex("aliased-1");
        createIndex("aliased-2");
        assertThat(http().post(
                                "/_aliases",
                                "{\"actions\": [{\"add\": {\"index\": \"aliased-1\", \"alias\": \"one\"}},"
                                        + " {\"add\": {\"indices\": [\"aliased-1\", \"aliased-2\"], \"alias\": \"both\"}}]}")
                        .status())
                .isEqualTo(200);
        JsonNode viaAlias = grant("one", "/a", "exclusive", "w1");
        assertThat(viaAlias.get("index").asText()).isEqualTo("aliased-1");
        assertConflicts(locks().acquire("aliased-1", "/a", "shared", "w2"), viaAlias);
        assertThat(assertError(locks().acquire("both", "/a", "exclusive", "w1"), 400, "illegal_argument_exception"))
                .contains("resolves to 2 indices [aliased-1, aliased-2]");
        release("aliased-1", viaAlias);
    }

    @Test
    @Order(14)
    void shouldKeepTheLockIndexAwayFromDocumentApis() {
        createIndex("sys");
        JsonNode g = grant("sys", "/s", "exclusive", "w1");
        List<Http.Response> attempts = List.of(
                http().get("/" + LOCK_INDEX + "/_doc/sys"),
                http().put(
                                "/" + LOCK_INDEX + "/_doc/sys",
                                "{\"namespace\": \"sys\", \"last_token\": 1, \"grants\": []}"),
                http().post("/" + LOCK_INDEX + "/_doc", "{\"x\": 1}"),
                http().post("/" + LOCK_INDEX + "/_update/sys", "{\"doc\": {\"grants\": []}}"),
                http().send("DELETE", "/" + LOCK_INDEX + "/_doc/sys", null, "application/json"),
                http().send("DELETE", "/" + LOCK_INDEX, null, "application/json"),
                http().post("/" + LOCK_INDEX + "/_search", "{}"),
                http().post("/" + LOCK_INDEX + "/_close", null),
                http().put("/" + LOCK_INDEX + "/_settings", "{\"index\": {\"number_of_replicas\": 2}}"),
                http().send(
                                "POST",
                                "/_bulk",
                                "{\"index\": {\"_index\": \"" + LOCK_INDEX
                                        + "\", \"_id\": \"sys\"}}\n{\"grants\": []}\n",
                                "application/x-ndjson"),
                http().send(
                                "POST",
                                "/_bulk",
                                "{\"delete\": {\"_index\": \"" + LOCK_INDEX + "\", \"_id\": \"sys\"}}\n",
                                "application/x-ndjson"),
                http().post("/" + LOCK_INDEX + "/_treelock/acquire", "{\"path\": \"/a\", \"owner\": \"w\"}"));
        for (Http.Response r : attempts) {
            if (r.status() == 200) {
                // _bulk answers 200 with per-item errors.
                assertThat(r.get("errors").asBoolean()).as("%s", r).isTrue();
                assertThat(r.get("items").get(0).elements().next().get("status").asInt())
                        .as("%s", r)
                        .isEqualTo(400);
            } else {
                assertThat(r.status()).as("%s", r).isBetween(400, 499);
            }
            assertThat(r.raw()).as("%s", r).doesNotContain("\"grants\":[{");
        }
        // Nothing changed: the lock is still held, with its token.
        JsonNode held =
                locks().list("sys", null).get("locks").get(0).get("holders").get(0);
        assertThat(held.get("token").asLong()).isEqualTo(g.get("token").asLong());
        assertConflicts(locks().acquire("sys", "/s", "exclusive", "w2"), g);
        // It is a hidden system index with one primary and up to one replica.
        JsonNode settings = http().get(
                        "/_cluster/state/metadata/" + LOCK_INDEX + "?filter_path=**.settings.index,**.system")
                .json();
        JsonNode index = settings.get("metadata").get("indices").get(LOCK_INDEX);
        assertThat(index.get("system").asBoolean()).isTrue();
        assertThat(index.get("settings").get("index").get("hidden").asText()).isEqualTo("true");
        assertThat(index.get("settings")
                        .get("index")
                        .get("auto_expand_replicas")
                        .asText())
                .isEqualTo("0-1");
        assertThat(index.get("settings").get("index").get("number_of_shards").asText())
                .isEqualTo("1");
        release("sys", g);
    }

    @Test
    @Order(15)
    void shouldRefuseLeasesAndWaitsOverTheNodeMaximum() {
        createIndex("limits");
        assertThat(assertError(
                        locks().acquire("limits", "/a", "exclusive", "w", "2h", null),
                        400,
                        "illegal_argument_exception"))
                .contains("ttl [2h] is longer than the maximum [1h]")
                .contains("esrel.treelock.max_ttl");
        assertThat(assertError(
                        locks().acquire("limits", "/a", "exclusive", "w", null, "6m"),
                        400,
                        "illegal_argument_exception"))
                .contains("wait [6m] is longer than the maximum [5m]")
                .contains("esrel.treelock.max_wait");
        JsonNode g = granted(locks().acquire("limits", "/a", "exclusive", "w", "1h", "5m"));
        assertThat(assertError(
                        locks().renew("limits", "/a", "w", g.get("token").asLong(), "61m"),
                        400,
                        "illegal_argument_exception"))
                .contains("longer than the maximum");
        release("limits", g);
        try {
            putSetting("esrel.treelock.max_ttl", "\"5s\"");
            assertError(
                    locks().acquire("limits", "/a", "exclusive", "w", "6s", null), 400, "illegal_argument_exception");
            // The default lease (60 s) is capped by a shorter maximum.
            JsonNode capped = granted(locks().acquire("limits", "/a", "exclusive", "w"));
            assertThat(capped.get("expires_at_millis").asLong() - System.currentTimeMillis())
                    .isLessThanOrEqualTo(5_000L);
            release("limits", capped);
            assertThat(http().put("/_cluster/settings", "{\"persistent\": {\"esrel.treelock.max_ttl\": \"0s\"}}")
                            .status())
                    .isEqualTo(400);
        } finally {
            putSetting("esrel.treelock.max_ttl", "null");
        }
    }

    @Test
    @Order(16)
    void shouldRefuseGrantsBeyondTheTableSizeWith429() {
        createIndex("full");
        try {
            putSetting("esrel.treelock.max_locks_per_index", "3");
            List<JsonNode> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add(grant("full", "/f" + i, "shared", "w"));
            }
            assertThat(assertError(locks().acquire("full", "/f3", "shared", "w"), 429, "status_exception"))
                    .contains("the lock table of [full] is full")
                    .contains("esrel.treelock.max_locks_per_index");
            assertError(locks().acquire("full", "/f3", "shared", "w", null, "300ms"), 429, "status_exception");
            // Other indices have their own tables.
            createIndex("not-full");
            release("not-full", grant("not-full", "/f", "shared", "w"));
            release("full", held.remove(0));
            held.add(grant("full", "/f3", "shared", "w"));
            for (JsonNode g : held) {
                release("full", g);
            }
        } finally {
            putSetting("esrel.treelock.max_locks_per_index", "null");
        }
    }

    private static void putSetting(String key, String jsonValue) {
        Http.Response r = http().put("/_cluster/settings", "{\"persistent\": {\"" + key + "\": " + jsonValue + "}}");
        assertThat(r.status()).as("%s", r).isEqualTo(200);
    }

    /** More than 50 kinds of broken requests: each is a 4xx with an Elasticsearch error body, never a 5xx. */
    @Test
    @Order(17)
    void shouldAnswerHostileInputWith4xx() {
        createIndex("hostile");
        JsonNode held = grant("hostile", "/held", "exclusive", "w1");
        long token = held.get("token").asLong();
        String acquire = "/hostile/_treelock/acquire";
        String release = "/hostile/_treelock/release";
        String renew = "/hostile/_treelock/renew";
        Map<String, String[]> hostile = new LinkedHashMap<>();
        hostile.put("no body", new String[] {"POST", acquire, null});
        hostile.put("empty object", new String[] {"POST", acquire, "{}"});
        hostile.put("truncated json", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\""});
        hostile.put("not json", new String[] {"POST", acquire, "path=/a&owner=w"});
        hostile.put("array body", new String[] {"POST", acquire, "[{\"path\": \"/a\", \"owner\": \"w\"}]"});
        hostile.put("string body", new String[] {"POST", acquire, "\"/a\""});
        hostile.put("number body", new String[] {"POST", acquire, "42"});
        hostile.put("null body", new String[] {"POST", acquire, "null"});
        hostile.put("trailing garbage", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\"} x"});
        hostile.put("two objects", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\"}{}"});
        hostile.put(
                "duplicate keys",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"path\": \"/b\", \"owner\": \"w\"}"});
        hostile.put(
                "unknown field",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"force\": true}"});
        hostile.put(
                "token on acquire",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"token\": 1}"});
        hostile.put("numeric path", new String[] {"POST", acquire, "{\"path\": 1, \"owner\": \"w\"}"});
        hostile.put("array path", new String[] {"POST", acquire, "{\"path\": [\"/a\"], \"owner\": \"w\"}"});
        hostile.put("object path", new String[] {"POST", acquire, "{\"path\": {\"$ne\": null}, \"owner\": \"w\"}"});
        hostile.put("boolean owner", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": false}"});
        hostile.put(
                "numeric mode", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"mode\": 1}"});
        hostile.put(
                "unknown mode",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"mode\": \"write\"}"});
        hostile.put(
                "uppercase mode",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"mode\": \"EXCLUSIVE\"}"});
        hostile.put("relative path", new String[] {"POST", acquire, "{\"path\": \"a/b\", \"owner\": \"w\"}"});
        hostile.put("dot-dot path", new String[] {"POST", acquire, "{\"path\": \"/a/../held\", \"owner\": \"w\"}"});
        hostile.put("dot path", new String[] {"POST", acquire, "{\"path\": \"/a/./b\", \"owner\": \"w\"}"});
        hostile.put("double slash", new String[] {"POST", acquire, "{\"path\": \"/a//b\", \"owner\": \"w\"}"});
        hostile.put("trailing slash", new String[] {"POST", acquire, "{\"path\": \"/a/\", \"owner\": \"w\"}"});
        hostile.put("empty path", new String[] {"POST", acquire, "{\"path\": \"\", \"owner\": \"w\"}"});
        hostile.put("nul in path", new String[] {"POST", acquire, "{\"path\": \"/a\\u0000b\", \"owner\": \"w\"}"});
        hostile.put("newline in path", new String[] {"POST", acquire, "{\"path\": \"/a\\nb\", \"owner\": \"w\"}"});
        hostile.put(
                "lone surrogate path", new String[] {"POST", acquire, "{\"path\": \"/a\\ud800\", \"owner\": \"w\"}"});
        hostile.put(
                "oversized path",
                new String[] {"POST", acquire, "{\"path\": \"/" + "x".repeat(5000) + "\", \"owner\": \"w\"}"});
        hostile.put(
                "too deep path",
                new String[] {"POST", acquire, "{\"path\": \"" + "/d".repeat(200) + "\", \"owner\": \"w\"}"});
        hostile.put("missing owner", new String[] {"POST", acquire, "{\"path\": \"/a\"}"});
        hostile.put("empty owner", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"\"}"});
        hostile.put("blank owner", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \" \\t \"}"});
        hostile.put(
                "oversized owner",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"" + "o".repeat(300) + "\"}"});
        hostile.put(
                "lone surrogate owner", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"\\udc00\"}"});
        hostile.put("numeric ttl", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": 30}"});
        hostile.put(
                "ttl without unit",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"30\"}"});
        hostile.put(
                "negative ttl",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"-5s\"}"});
        hostile.put(
                "minus one ttl",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"-1\"}"});
        hostile.put(
                "zero ttl", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"0s\"}"});
        hostile.put("absurd ttl", new String[] {
            "POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"100000000000000000000d\"}"
        });
        hostile.put("huge ttl", new String[] {
            "POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"9223372036854775807d\"}"
        });
        hostile.put(
                "fractional garbage ttl",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"1.2.3s\"}"});
        hostile.put(
                "negative wait",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"wait\": \"-1s\"}"});
        hostile.put(
                "absurd wait",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"wait\": \"1000d\"}"});
        hostile.put(
                "object wait",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"wait\": {\"s\": 1}}"});
        hostile.put(
                "deeply nested",
                new String[] {"POST", acquire, "{\"path\": " + "[".repeat(3000) + "]".repeat(3000) + "}"});
        hostile.put(
                "invalid utf-8",
                new String[] {"POST", acquire, "{\"path\": \"/a\u00ff\", \"owner\": \"w\"}", "latin1"});
        hostile.put("xml", new String[] {"POST", acquire, "<lock path=\"/a\"/>", "application/xml"});
        hostile.put(
                "unknown param",
                new String[] {"POST", acquire + "?force=true", "{\"path\": \"/a\", \"owner\": \"w\"}"});
        hostile.put("GET acquire", new String[] {"GET", acquire, null});
        hostile.put("PUT acquire", new String[] {"PUT", acquire, "{\"path\": \"/a\", \"owner\": \"w\"}"});
        hostile.put("DELETE lock", new String[] {"DELETE", "/hostile/_treelock", null});
        hostile.put(
                "bad index name",
                new String[] {"POST", "/_Bad*Index_/_treelock/acquire", "{\"path\": \"/a\", \"owner\": \"w\"}"});
        hostile.put(
                "index list",
                new String[] {"POST", "/hostile,other/_treelock/acquire", "{\"path\": \"/a\", \"owner\": \"w\"}"});
        hostile.put(
                "release without token", new String[] {"POST", release, "{\"path\": \"/held\", \"owner\": \"w1\"}"});
        hostile.put("release string token", new String[] {
            "POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": \"" + token + "\"}"
        });
        hostile.put(
                "release fractional token",
                new String[] {"POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": 1.5}"});
        hostile.put("release huge token", new String[] {
            "POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": 123456789012345678901234567890}"
        });
        hostile.put(
                "release negative token",
                new String[] {"POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": -" + token + "}"});
        hostile.put(
                "release zero token",
                new String[] {"POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": 0}"});
        hostile.put("release with mode", new String[] {
            "POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": " + token + ", \"mode\": \"shared\"}"
        });
        hostile.put(
                "release relative path",
                new String[] {"POST", release, "{\"path\": \"held\", \"owner\": \"w1\", \"token\": " + token + "}"});
        hostile.put("renew negative ttl", new String[] {
            "POST", renew, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": " + token + ", \"ttl\": \"-1s\"}"
        });
        hostile.put("renew absurd ttl", new String[] {
            "POST", renew, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": " + token + ", \"ttl\": \"1000d\"}"
        });
        hostile.put("renew with wait", new String[] {
            "POST", renew, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": " + token + ", \"wait\": \"1s\"}"
        });
        hostile.put("list with body", new String[] {"GET", "/hostile/_treelock", "{\"path\": \"/\"}"});
        hostile.put("list dot-dot", new String[] {"GET", "/hostile/_treelock?path=" + Http.enc("/a/.."), null});
        hostile.put("list empty path", new String[] {"GET", "/hostile/_treelock?path=", null});
        hostile.put("list huge size", new String[] {"GET", "/hostile/_treelock?size=99999999999", null});
        hostile.put("list negative size", new String[] {"GET", "/hostile/_treelock?size=-1", null});
        hostile.put("list dot-dot after", new String[] {"GET", "/hostile/_treelock?after=" + Http.enc("/a/.."), null});

        for (Map.Entry<String, String[]> e : hostile.entrySet()) {
            String[] req = e.getValue();
            Http.Response r;
            if (req.length > 3 && req[3].equals("latin1")) {
                r = sendBytes(req[1], req[2].getBytes(StandardCharsets.ISO_8859_1));
            } else {
                r = http().send(req[0], req[1], req[2], req.length > 3 ? req[3] : "application/json");
            }
            assertThat(r.status()).as("%s: %s", e.getKey(), r).isBetween(400, 499);
            assertThat(r.get("status").asInt()).as("%s: %s", e.getKey(), r).isEqualTo(r.status());
            if (r.get("error").isObject()) {
                assertThat(r.get("error").get("reason").asText())
                        .as("%s: %s", e.getKey(), r)
                        .isNotBlank();
            }
        }
        assertThat(hostile).hasSizeGreaterThanOrEqualTo(50);
        // None of it changed the table.
        JsonNode holders = locks().list("hostile", null).get("locks");
        assertThat(holders).hasSize(1);
        assertThat(holders.get(0).get("holders").get(0).get("token").asLong()).isEqualTo(token);
        release("hostile", held);
    }

    private static Http.Response sendBytes(String path, byte[] body) {
        try {
            java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(
                                            cluster.httpUri().resolve(path))
                                    .header("Content-Type", "application/json")
                                    .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(body))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            JsonNode json;
            try {
                json = Http.JSON.readTree(response.body());
            } catch (Exception e) {
                json = Http.JSON.missingNode();
            }
            return new Http.Response(response.statusCode(), response.body(), json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Eight threads, hundreds of random acquires and releases each on a small tree, some waiting, through all
     * three nodes: no two conflicting grants ever overlap (as seen by an independent checker), tokens follow the
     * grant order, and nothing is left held at the end.
     */
    @Test
    @Order(18)
    @Tag(LOAD)
    void shouldNeverGrantConflictingLocksUnderContention() throws Exception {
        createIndex("contended");
        // The default retry budget (30 s), not this class's 10 s: three nodes' rounds on one table conflict, and on a
        // loaded 2-core machine (run-tests' lanes) a node lost every compare-and-set for 10 s and answered the
        // documented 503; this test is about the grants, the 503 has its own.
        putSetting("esrel.treelock.retry_timeout", "\"30s\"");
        try {
            contend();
        } finally {
            putSetting("esrel.treelock.retry_timeout", "null");
        }
    }

    private void contend() throws Exception {
        String[] paths = {"/", "/a", "/a", "/a/x", "/a/x", "/a/y", "/a/x/1", "/a/x/2", "/b", "/b/x", "/b/y", "/ab"};
        LockChecker checker = new LockChecker();
        int threads = 8;
        int opsPerThread = 200;
        AtomicInteger conflicts = new AtomicInteger();
        ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        try {
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String owner = "worker-" + t;
                Random random = new Random(1000 + t);
                // Spread over the nodes: their rounds on the one table conflict, and each node keeps up with the
                // others' heads (up to 8 rounds behind: catch up from the head; more: rebuild), which the checker
                // then judges.
                Locks client = new Locks(new Http(cluster.httpUris().get(t % cluster.size())));
                workers.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < opsPerThread; i++) {
                                String path = paths[random.nextInt(paths.length)];
                                String mode = path.equals("/")
                                        ? (random.nextInt(4) == 0 ? "exclusive" : "shared")
                                        : (random.nextInt(5) < 2 ? "exclusive" : "shared");
                                String wait = switch (random.nextInt(4)) {
                                    case 0 -> "100ms";
                                    case 1 -> "300ms";
                                    default -> null;
                                };
                                Http.Response r = client.acquire("contended", path, mode, owner, "60s", wait);
                                if (r.status() == 409) {
                                    conflicts.incrementAndGet();
                                    if (r.get("conflicts").isEmpty()) {
                                        unexpected.add("409 without conflicts: " + r);
                                    }
                                    continue;
                                }
                                if (r.status() != 200) {
                                    unexpected.add(r.toString());
                                    continue;
                                }
                                LockChecker.Held held = checker.enter(
                                        path, mode, owner, r.get("token").asLong());
                                if (random.nextInt(3) == 0) {
                                    try {
                                        Thread.sleep(random.nextInt(5));
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                        return;
                                    }
                                }
                                checker.exit(held);
                                Http.Response released = client.release("contended", path, owner, held.token());
                                if (released.status() != 200) {
                                    unexpected.add("release: " + released);
                                }
                            }
                        },
                        executor));
            }
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
        } finally {
            executor.shutdownNow();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf(
                "contention: %d threads x %d ops: %d granted, %d refused after their wait, in %d ms (%.0f ops/s)%n",
                threads,
                opsPerThread,
                checker.granted(),
                conflicts.get(),
                millis,
                threads * opsPerThread * 1000.0 / millis);
        assertThat(unexpected).isEmpty();
        assertThat(checker.violations()).isEmpty();
        assertThat(checker.granted()).isGreaterThan(threads * opsPerThread / 4);
        assertThat(conflicts.get()).isPositive();
        assertThat(locks().list("contended", null).get("locks")).isEmpty();
    }

    /**
     * While clients acquire and release on a small tree through every node, the node holding the lock index's
     * primary is killed. No two conflicting grants may overlap, before, during or after the failover; tokens
     * keep increasing; grants go on once the replica is promoted; the node comes back and tokens still increase.
     * Runs last: it kills and restarts a node.
     */
    @Test
    @Order(19)
    void shouldRefuseToBindAGrantToAUserWithoutSecurity() {
        createIndex("unsecured");
        Http.Response r = http().post(
                        "/unsecured/_treelock/acquire", "{\"path\": \"/a\", \"owner\": \"w\", \"bind_to_user\": true}");
        assertThat(assertError(r, 400, "illegal_argument_exception"))
                .contains("bind_to_user needs an authenticated user");
        assertThat(locks().list("unsecured", null).get("locks")).isEmpty();
    }

    @Test
    @Tag(NODE_FAULTS)
    @Order(100)
    void shouldNeverGrantConflictingLocksWhileTheLockIndexPrimaryFails() throws Exception {
        assumeTrue(cluster.supportsNodeControl(), "needs node control");
        Http first = new Http(cluster.httpUri());
        assertThat(first.put("/failover", "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 1}}")
                        .status())
                .isEqualTo(200);
        Locks setup = new Locks(first);
        JsonNode g = setup.acquire("failover", "/setup", "exclusive", "setup").json();
        assertThat(setup.release("failover", "/setup", "setup", g.get("token").asLong())
                        .status())
                .isEqualTo(200);
        cluster.waitForHealth("green", Duration.ofMinutes(2));
        List<JsonNode> copies = settledLockIndexCopies(first);
        assertThat(copies).as("a primary and a replica: %s", copies).hasSize(2);
        int victim = nodeIndex(copies.stream()
                .filter(c -> c.get("prirep").asText().equals("p"))
                .findFirst()
                .orElseThrow());

        List<URI> live = new CopyOnWriteArrayList<>(cluster.httpUris());
        LockChecker checker = new LockChecker();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger grantedAfterKill = new AtomicInteger();
        AtomicBoolean killed = new AtomicBoolean();
        AtomicInteger ops = new AtomicInteger();
        AtomicInteger unknown = new AtomicInteger();
        ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
        int threads = 6;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        long killedAt;
        long maxTokenBeforeKill;
        try {
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String owner = "worker-" + t;
                Random random = new Random(2000 + t);
                workers.add(CompletableFuture.runAsync(
                        () -> work(
                                owner, random, live, checker, stop, killed, grantedAfterKill, ops, unknown, unexpected),
                        executor));
            }
            awaitTrue("operations before the kill", Duration.ofMinutes(2), () -> ops.get() >= 150);
            maxTokenBeforeKill = checker.maxToken();
            // Requests only go to live nodes; those in flight on the victim fail and count as unknown.
            live.remove(cluster.httpUris().get(victim));
            killedAt = System.nanoTime();
            cluster.killNode(victim);
            killed.set(true);
            awaitTrue("grants after the kill", Duration.ofMinutes(3), () -> grantedAfterKill.get() >= 150);
            stop.set(true);
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(3, TimeUnit.MINUTES);
        } finally {
            stop.set(true);
            executor.shutdownNow();
        }
        System.out.printf(
                "failover: killed node-%d (primary of %s) after %d ops; %d grants in all, %d after the kill; %d outcomes unknown (node died)%n",
                victim, LOCK_INDEX, 150, checker.granted(), grantedAfterKill.get(), unknown.get());
        assertThat(unexpected).isEmpty();
        assertThat(checker.violations()).isEmpty();

        Http survivor = new Http(live.get(0));
        List<JsonNode> after = lockIndexCopies(survivor);
        assertThat(after.stream()
                        .filter(c -> c.get("prirep").asText().equals("p")
                                && c.get("state").asText().equals("STARTED")))
                .as("a new primary: %s", after)
                .hasSize(1)
                .allSatisfy(c -> assertThat(nodeIndex(c)).isNotEqualTo(victim));

        // Tokens still increase: above every token any client saw, before the kill or after.
        Locks locks = new Locks(survivor);
        JsonNode fresh =
                locks.acquire("failover", "/after", "exclusive", "check").json();
        assertThat(fresh.get("token").asLong())
                .isGreaterThan(checker.maxToken())
                .isGreaterThan(maxTokenBeforeKill);
        assertThat(locks.release(
                                "failover",
                                "/after",
                                "check",
                                fresh.get("token").asLong())
                        .status())
                .isEqualTo(200);

        cluster.startNode(victim);
        cluster.waitForHealth("green", Duration.ofMinutes(3));
        // Through the restarted node: grants whose release got lost with the node expire (20 s leases), then the
        // global lock is free.
        Locks back = new Locks(new Http(cluster.httpUris().get(victim), Duration.ofSeconds(90)));
        JsonNode global = back.acquire("failover", "/", "exclusive", "check", "10s", "45s")
                .json();
        assertThat(global.get("acquired").asBoolean()).as("%s", global).isTrue();
        assertThat(global.get("token").asLong())
                .isGreaterThan(fresh.get("token").asLong());
        assertThat(back.release("failover", "/", "check", global.get("token").asLong())
                        .status())
                .isEqualTo(200);
        System.out.printf(
                "failover: recovered in %d s%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killedAt));
    }

    private static void work(
            String owner,
            Random random,
            List<URI> live,
            LockChecker checker,
            AtomicBoolean stop,
            AtomicBoolean killed,
            AtomicInteger grantedAfterKill,
            AtomicInteger ops,
            AtomicInteger unknown,
            ConcurrentLinkedQueue<String> unexpected) {
        java.util.Map<URI, Locks> clients = new java.util.HashMap<>();
        java.util.function.Supplier<Locks> anyLiveNode = () -> clients.computeIfAbsent(
                live.get(random.nextInt(live.size())), uri -> new Locks(new Http(uri, Duration.ofSeconds(90))));
        while (stop.get() == false) {
            String path = PATHS[random.nextInt(PATHS.length)];
            String mode = path.equals("/")
                    ? (random.nextInt(4) == 0 ? "exclusive" : "shared")
                    : (random.nextInt(5) < 2 ? "exclusive" : "shared");
            Locks client = anyLiveNode.get();
            boolean afterKill = killed.get();
            Http.Response r;
            try {
                r = client.acquire("failover", path, mode, owner, "20s", random.nextBoolean() ? "200ms" : null);
            } catch (UncheckedIOException e) {
                unknown.incrementAndGet();
                continue;
            } finally {
                ops.incrementAndGet();
            }
            if (r.status() == 409) {
                continue;
            }
            if (r.status() != 200) {
                // A live node may give up during the failover: only with the documented, truthful 503, and then
                // the grant's fate is unknown, like a lost answer.
                if (killed.get() && truthfulUnavailable(r)) {
                    unknown.incrementAndGet();
                } else {
                    unexpected.add("acquire: " + r);
                }
                continue;
            }
            LockChecker.Held held =
                    checker.enter(path, mode, owner, r.get("token").asLong());
            if (afterKill) {
                grantedAfterKill.incrementAndGet();
            }
            try {
                Thread.sleep(random.nextInt(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            checker.exit(held);
            try {
                Http.Response released = anyLiveNode.get().release("failover", path, owner, held.token());
                // During the failover a release can be retried past the 20 s lease (404), or give up (the 503).
                boolean failoverOutcome = killed.get() && (released.status() == 404 || truthfulUnavailable(released));
                if (released.status() != 200 && failoverOutcome == false) {
                    unexpected.add("release: " + released);
                }
            } catch (UncheckedIOException e) {
                unknown.incrementAndGet();
            }
        }
    }

    /**
     * The answer of a node that gave up because the lock index was unavailable: a 503 {@code status_exception}
     * saying so, how long it retried and the last cause (kept as {@code caused_by}); never a 502 of the raw
     * transport failure, nor a claim of contention.
     */
    static boolean truthfulUnavailable(Http.Response r) {
        if (r.status() != 503 || "status_exception".equals(r.errorType()) == false) {
            return false;
        }
        String reason = r.get("error").get("reason").asText();
        return reason.startsWith("gave up after trying for ")
                && reason.contains("the lock index [" + LOCK_INDEX + "] was unavailable")
                && reason.contains("last failure: [")
                && reason.contains("concurrently") == false
                && r.get("error").has("caused_by");
    }

    /**
     * The outage the README promises a 503 for: every copy of the lock index gone (both nodes holding one are
     * killed, which also leaves the survivor without a master). Acquire, renew, release and list on the survivor
     * each retry for 30 s and then answer the truthful 503, naming the last cause, whatever it was (no connection
     * to the primary's node, no master, no active shard). Then the nodes come back and locks work again.
     *
     * <p>TODO(issue 13): the same with the master that holds the lock index's primary FROZEN (SIGSTOP ~40 s, then
     * SIGCONT) instead of killed, the case measured from outside, once testenv has {@code freezeNode}/{@code
     * thawNode}: assert every failure is this 503, then that locks work again after the thaw.
     */
    @Test
    @Tag(NODE_FAULTS)
    @Order(101)
    void shouldAnswerTheDocumented503NamingTheCauseWhenTheLockIndexHasNoCopyLeft() throws Exception {
        assumeTrue(cluster.supportsNodeControl(), "needs node control");
        Http first = new Http(cluster.httpUri());
        cluster.waitForHealth("green", Duration.ofMinutes(3));
        JsonNode held = new Locks(first)
                .acquire("failover", "/outage", "exclusive", "outage", "10m", null)
                .json();
        assertThat(held.get("acquired").asBoolean()).as("%s", held).isTrue();
        List<JsonNode> copies = settledLockIndexCopies(first);
        assertThat(copies).hasSize(2);
        Set<Integer> victims = new java.util.TreeSet<>();
        copies.forEach(c -> victims.add(nodeIndex(c)));
        int survivor = java.util.stream.IntStream.range(0, cluster.size())
                .filter(i -> victims.contains(i) == false)
                .findFirst()
                .orElseThrow();
        Locks locks = new Locks(new Http(cluster.httpUris().get(survivor), Duration.ofSeconds(120)));

        ExecutorService executor = Executors.newFixedThreadPool(4);
        long start = System.nanoTime();
        try {
            for (int victim : victims) {
                cluster.killNode(victim);
            }
            long token = held.get("token").asLong();
            List<Future<Http.Response>> answers = List.of(
                    executor.submit(() -> locks.acquire("failover", "/elsewhere", "exclusive", "outage-2")),
                    executor.submit(() -> locks.renew("failover", "/outage", "outage", token, "10m")),
                    executor.submit(() -> locks.release("failover", "/outage", "outage", token)),
                    executor.submit(() -> locks.list("failover", null)));
            for (Future<Http.Response> answer : answers) {
                Http.Response r = answer.get(3, TimeUnit.MINUTES);
                assertThat(truthfulUnavailable(r)).as("%s", r).isTrue();
                System.out.printf("outage: %s%n", r.get("error").get("reason").asText());
            }
            System.out.printf(
                    "outage: every request answered 503 within %d s%n",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
        } finally {
            executor.shutdownNow();
            for (int victim : victims) {
                cluster.startNode(victim);
            }
        }
        cluster.waitForHealth("green", Duration.ofMinutes(3));
        Locks back = new Locks(new Http(cluster.httpUri(), Duration.ofSeconds(90)));
        JsonNode after =
                back.acquire("failover", "/after-outage", "exclusive", "check").json();
        assertThat(after.get("acquired").asBoolean()).as("%s", after).isTrue();
        assertThat(after.get("token").asLong()).isGreaterThan(held.get("token").asLong());
        assertThat(back.release(
                                "failover",
                                "/after-outage",
                                "check",
                                after.get("token").asLong())
                        .status())
                .isEqualTo(200);
    }

    private static List<JsonNode> lockIndexCopies(Http http) {
        Http.Response r = http.get("/_cat/shards/" + LOCK_INDEX + "?format=json&h=index,prirep,node,state");
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        List<JsonNode> copies = new ArrayList<>();
        r.json().forEach(copies::add);
        return copies;
    }

    /**
     * The lock index's shard copies once none of them is moving: a green cluster may still be rebalancing
     * (a relocating copy is listed as {@code node-2 -> … node-1}), and the victims must be where the copies
     * stay.
     */
    private static List<JsonNode> settledLockIndexCopies(Http http) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            Http.Response settled =
                    http.get("/_cluster/health?wait_for_status=green&wait_for_no_relocating_shards=true&timeout=45s");
            List<JsonNode> copies = lockIndexCopies(http);
            boolean started =
                    copies.stream().allMatch(c -> c.get("state").asText().equals("STARTED"));
            if ((settled.status() == 200 && started) || attempt == 4) {
                assertThat(settled.status()).as("%s", settled).isEqualTo(200);
                assertThat(copies)
                        .as("%s", copies)
                        .allMatch(c -> c.get("state").asText().equals("STARTED"));
                return copies;
            }
            Thread.sleep(1000); // a rebalance started between the two calls, or is still going on
        }
    }

    /** testenv names node i {@code node-i}. */
    private static int nodeIndex(JsonNode copy) {
        return Integer.parseInt(copy.get("node").asText().substring("node-".length()));
    }
}
