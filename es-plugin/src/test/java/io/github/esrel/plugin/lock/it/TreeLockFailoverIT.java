package io.github.esrel.plugin.lock.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.plugin.it.Http;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Tree locks while nodes holding the lock index die, on a real 3-node cluster: no conflicting grants and increasing
 * tokens through the failover of the lock index's primary, and the documented 503 when no copy of it is left. Tagged
 * {@value AbstractTreeLockIT#NODE_FAULTS}: the tests kill and restart nodes, and testenv puts the shared cluster back
 * for the next class.
 */
@EsrelTest
@Tag(AbstractTreeLockIT.NODE_FAULTS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TreeLockFailoverIT extends AbstractTreeLockIT {

    @Cluster
    static final EsCluster cluster = threeNodes();

    private static final String[] PATHS = {"/", "/a", "/a", "/a/x", "/a/x", "/a/y", "/a/x/1", "/b", "/b/x", "/b/y"};

    /**
     * While clients acquire and release on a small tree through every node, the node holding the lock index's
     * primary is killed. No two conflicting grants may overlap, before, during or after the failover; tokens
     * keep increasing; grants go on once the replica is promoted; the node comes back and tokens still increase.
     * It kills and restarts a node; the next test takes over its index.
     */
    @Test
    @Order(1)
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
    @Order(2)
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
