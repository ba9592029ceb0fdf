package io.github.esrel.plugin.lock.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.plugin.it.Http;
import io.github.esrel.testenv.EsCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;

/**
 * What the tree lock ITs on the 3-node cluster share: the cluster, the calls they make on it and the assertions on its
 * answers. Each subclass is an {@code @EsrelTest} that declares {@code @Cluster static final EsCluster cluster =
 * threeNodes();}: the same configuration in every class, so one set of nodes serves them all in turn (starting nodes
 * is what costs time), and each test names its indices after what it tests.
 */
abstract class AbstractTreeLockIT {

    /**
     * The tests that kill nodes holding the lock index. They run on the default line, with the fault suite;
     * run-tests leaves them out of the other lines' passes ({@code -DexcludedGroups=node-faults}), which run the
     * REST contract and its errors.
     */
    static final String NODE_FAULTS = "node-faults";

    /**
     * The tests that restart nodes with other settings (the lock store changed under held locks): line-independent
     * code, run on the default line only, as {@link #NODE_FAULTS}.
     */
    static final String NODE_RESTARTS = "node-restarts";

    /**
     * The tests that prove line-independent code under sustained load (threads racing for minutes of CPU): run on the
     * default line only, as {@link #NODE_FAULTS}.
     */
    static final String LOAD = "load";

    static final String LOCK_INDEX = ".esrel-treelocks-1";

    private static Locks locks;

    /**
     * Three nodes, shared by the classes that ask for the same, with node control: {@link TreeLockFailoverIT} kills
     * nodes, and testenv puts the cluster back (every node up, green) before the next class. The start timeout comes
     * from the build ({@code esrel.testenv.start-timeout}): three nodes on a shared 2-core machine have needed almost
     * 5 minutes.
     */
    static EsCluster threeNodes() {
        return EsCluster.builder()
                .nodes(3)
                // The 503 test waits this long for its answers; 10 s still outlasts a primary failover after a kill.
                .setting("esrel.treelock.retry_timeout", "10s")
                .sharedWithNodeControl()
                .build();
    }

    @BeforeAll
    static void connect(EsCluster cluster) {
        locks = new Locks(new Http(cluster.httpUri()));
    }

    static Locks locks() {
        return locks;
    }

    static Http http() {
        return locks().http();
    }

    static void createIndex(String name) {
        Http.Response r =
                http().put("/" + name, "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 0}}");
        assertThat(r.status()).as("%s", r).isEqualTo(200);
    }

    static JsonNode granted(Http.Response r) {
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        assertThat(r.get("acquired").asBoolean()).as("%s", r).isTrue();
        return r.json();
    }

    static JsonNode grant(String index, String path, String mode, String owner) {
        return granted(locks().acquire(index, path, mode, owner));
    }

    /** Asserts a 409 whose conflicts are exactly these grants (path, mode, owner), in any order. */
    static void assertConflicts(Http.Response r, JsonNode... blockers) {
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

    static void release(String index, JsonNode grant) {
        Http.Response r = locks().release(
                        index,
                        grant.get("path").asText(),
                        grant.get("owner").asText(),
                        grant.get("token").asLong());
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        assertThat(r.raw()).isEqualTo("{\"released\":true}");
    }

    static String assertError(Http.Response r, int status, String type) {
        assertThat(r.status()).as("%s", r).isEqualTo(status);
        assertThat(r.get("status").asInt()).as("%s", r).isEqualTo(status);
        assertThat(r.errorType()).as("%s", r).isEqualTo(type);
        return r.get("error").get("reason").asText();
    }

    static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** The paths a listing answered, in its order. */
    static List<String> paths(Http.Response r) {
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        List<String> paths = new ArrayList<>();
        r.get("locks").forEach(l -> paths.add(l.get("path").asText()));
        return paths;
    }

    static void putSetting(String key, String jsonValue) {
        Http.Response r = http().put("/_cluster/settings", "{\"persistent\": {\"" + key + "\": " + jsonValue + "}}");
        assertThat(r.status()).as("%s", r).isEqualTo(200);
    }

    static void awaitTrue(String what, Duration timeout, BooleanSupplier condition) {
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
}
