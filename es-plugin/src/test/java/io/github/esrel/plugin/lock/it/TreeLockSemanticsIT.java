package io.github.esrel.plugin.lock.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.plugin.it.Http;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The rules of tree locks and their REST contract on a real 3-node cluster: the shape of a grant, shared locks on
 * ancestors, the global lock, namespaces per index, several holders, listing, increasing tokens, and the indices and
 * aliases a lock may name.
 */
@EsrelTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TreeLockSemanticsIT extends AbstractTreeLockIT {

    @Cluster
    static final EsCluster cluster = threeNodes();

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

    @Test
    @Order(7)
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
    @Order(8)
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
}
