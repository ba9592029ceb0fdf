package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Tree locks, the plugin's and the lock-document fallback's side by side, under contended traffic
 * ({@link LockLoad}) through a node kill, a node freeze longer than fault detection and a rolling
 * restart, on one 3-node cluster whose lock indices have a replica (the plugin's system index expands to
 * one, the fallback's lock index too). Through every fault, an independent {@link GrantObserver} sees
 * <b>no two conflicting grants held at once</b> and <b>fencing tokens strictly increasing per path</b>
 * (one observer per backend for the whole class, so across faults); after each fault every lock is free
 * again within its lease; and the time the lock service takes to answer again is printed, with the
 * counts, as one {@code FIGURE} row per fault and backend.
 *
 * <p>The faults aim at the lock tables: the kill at the node holding the primary of the plugin's lock
 * index, the freeze at the node holding the primary of the fallback's (each row says which primaries the
 * faulted node held). Fault detection is shortened ({@code cluster.fault_detection.*}: 5 s checks, 2
 * retries, instead of 10 s and 3) so that a freeze longer than it stays short; the freeze lasts until
 * the other nodes have removed the frozen one, plus 5 s.
 *
 * <p>Operations counted are acquisitions the service answered (granted or busy); each is followed by its
 * release when granted. The class runs at least {@value #MIN_OPERATIONS} of them in total over the three
 * faults and both backends: each fault's load runs until the fault is healed and both backends together
 * did their share of what is still missing (the rolling restart, which lasts longest, runs first, so the
 * shorter faults wait for fewer operations after their heal), each at least {@value
 * #MIN_OPERATIONS_PER_BACKEND} (the plugin is the faster one).
 */
@EsrelTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TreeLockFaultIT {

    static final int MIN_OPERATIONS = 10_000;
    private static final int FAULTS = 3;

    static final int MIN_OPERATIONS_PER_BACKEND = 500;
    private static final int WARM_UP = 200;
    private static final int THREADS = 4;
    private static final Duration PATIENCE = Duration.ofMinutes(5);
    private static final String PLUGIN_LOCK_INDEX = ".esrel-treelocks-1";

    @Cluster
    static final EsCluster cluster = FaultCluster.build();

    private static final List<LockLoad> loads = new ArrayList<>();
    private static int faultsRun;

    @BeforeAll
    static void createNamespaces() throws IOException {
        ElasticsearchClient es = cluster.client();
        for (TreeLocks.Backend backend : List.of(TreeLocks.Backend.PLUGIN, TreeLocks.Backend.DOCUMENTS)) {
            String ns = "locks-" + backend.name().toLowerCase(Locale.ROOT);
            for (String index : List.of(ns, ns + "-probe")) {
                es.indices()
                        .create(c -> c.index(index)
                                .settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
            }
            loads.add(new LockLoad(es, backend, ns, ns + "-probe", THREADS));
        }
        // Both lock indices exist before the faults aim at them: the plugin's on first use, the fallback's here.
        try (TreeLocks plugin =
                        TreeLocks.of(b -> b.client(es).index("locks-plugin").backend(TreeLocks.Backend.PLUGIN));
                TreeLocks docs =
                        TreeLocks.of(b -> b.client(es).index("locks-documents").backend(TreeLocks.Backend.DOCUMENTS))) {
            plugin.acquire("/warm-up", LockMode.SHARED).orThrow().release();
            docs.acquire("/warm-up", LockMode.SHARED).orThrow().release();
        }
        cluster.waitForHealth("green", PATIENCE);
    }

    @AfterAll
    static void totals() {
        long total = loads.stream().mapToLong(LockLoad::operations).sum();
        for (LockLoad load : loads) {
            Figures.row(
                    "all three faults",
                    "tree locks (" + load.backend() + ")",
                    load.operations(),
                    load.observer.violations().size(),
                    -1,
                    load.observer.checked() + " grants checked");
        }
        System.out.println("tree-lock operations in total: " + total);
    }

    /**
     * The observer can fail: two grants of an exclusive lock on the same path in two namespaces (which
     * never interact) look, to an observer that is not told the namespace, like an overlap.
     */
    @Test
    @Order(0)
    void shouldSeeAnOverlapWhenThereIsOne() throws IOException {
        ElasticsearchClient es = cluster.client();
        es.indices()
                .create(c -> c.index("locks-observer-check")
                        .settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
        GrantObserver observer = new GrantObserver();
        try (TreeLocks one =
                        TreeLocks.of(b -> b.client(es).index("locks-plugin").backend(TreeLocks.Backend.PLUGIN));
                TreeLocks other = TreeLocks.of(
                        b -> b.client(es).index("locks-observer-check").backend(TreeLocks.Backend.PLUGIN))) {
            long ticket = observer.sending();
            TreeLock first = one.acquire("/a", LockMode.EXCLUSIVE).orThrow();
            observer.granted(first, ticket);
            TreeLock second = other.acquire("/a", LockMode.EXCLUSIVE).orThrow();
            observer.granted(second, observer.sending());
            first.release();
            second.release();
        }
        assertThat(observer.violations())
                .anySatisfy(v -> assertThat(v).contains(" granted while ").endsWith(" was held"));
    }

    @Test
    @Order(2)
    void shouldNeverGrantConflictingLocksWhenTheLockTablesNodeIsKilled() throws Exception {
        int victim = cluster.primaryNode(PLUGIN_LOCK_INDEX, 0);
        runThrough("node killed (kill -9) and restarted", victim, injected -> {
            cluster.killNode(victim);
            injected.run();
            cluster.startNode(victim);
            cluster.waitForHealth("green", PATIENCE);
        });
    }

    @Test
    @Order(3)
    void shouldNeverGrantConflictingLocksWhenANodeIsFrozenPastFaultDetection() throws Exception {
        int victim = cluster.primaryNode(TreeLocks.Builder.DEFAULT_LOCK_INDEX, 0);
        runThrough("node frozen (SIGSTOP) past fault detection", victim, injected -> {
            cluster.freezeNode(victim);
            injected.run();
            Faults.awaitRemoved(cluster, victim, PATIENCE);
            Thread.sleep(5_000);
            cluster.thawNode(victim);
            cluster.waitForHealth("green", PATIENCE);
        });
    }

    @Test
    @Order(1)
    void shouldNeverGrantConflictingLocksThroughARollingRestart() throws Exception {
        runThrough("rolling restart", -1, injected -> {
            injected.run();
            cluster.rollingRestart(PATIENCE);
        });
    }

    @Test
    @Order(4)
    void shouldHaveRunTheOperationsTheIssueAsksFor() {
        assertThat(loads.stream().mapToLong(LockLoad::operations).sum()).isGreaterThanOrEqualTo(MIN_OPERATIONS);
        assertThat(loads).allSatisfy(l -> assertThat(l.observer.violations()).isEmpty());
    }

    private interface Fault {
        /** Injects the fault, calls {@code injected} as soon as it is in effect, and heals it. */
        void inject(Runnable injected) throws Exception;
    }

    /**
     * Runs both loads, injects the fault once they are warm, keeps them running until the fault is over and
     * each did its share, then checks and prints.
     */
    private void runThrough(String fault, int victim, Fault inject) throws Exception {
        String held = victim < 0 ? "every node in turn" : "node-" + victim + primariesOn(victim);
        loads.forEach(LockLoad::start);
        AtomicLong faultStart = new AtomicLong();
        long faultMs;
        List<LockLoad.Phase> phases = new ArrayList<>();
        try {
            awaitOperations(0, WARM_UP, fault + ", warming up");
            inject.inject(() -> faultStart.set(System.nanoTime()));
            faultMs = (System.nanoTime() - faultStart.get()) / 1_000_000;
            awaitOperations(shareOfWhatIsMissing(), MIN_OPERATIONS_PER_BACKEND, fault + ", healed");
        } finally {
            for (LockLoad load : loads) {
                phases.add(load.stop());
            }
        }
        for (int i = 0; i < loads.size(); i++) {
            LockLoad load = loads.get(i);
            LockLoad.Phase p = phases.get(i);
            LockLoad.Recovery r = load.recovery(faultStart.get());
            long freeMs = load.awaitAllFree(LockLoad.TTL.multipliedBy(6));
            Figures.row(
                    fault,
                    "tree locks (" + load.backend() + ")",
                    p.operations(),
                    p.violations(),
                    r.answersAgainMs(),
                    "faulted " + held + ", fault to healed " + faultMs + " ms; granted " + p.granted() + ", busy "
                            + p.refused()
                            + ", errors " + p.errors() + ", failed releases " + p.releaseErrors()
                            + ", lost before release "
                            + p.lostBeforeRelease() + ", overlaps after a lease ended " + p.expiredOverlaps()
                            + "; longest probe gap " + r.longestGapMs() + " ms; all free " + freeMs
                            + " ms after the load stopped"
                            + "; ms = fault in effect to the answer of the first probe sent after it");
        }
        for (LockLoad load : loads) {
            assertThat(load.observer.violations())
                    .as("%s through: %s", load.backend(), fault)
                    .isEmpty();
            assertThat(load.observer.live()).isZero();
        }
    }

    /** Operations this phase must reach: what the class still misses, shared among the faults still to run. */
    private static long shareOfWhatIsMissing() {
        long before = loads.stream().mapToLong(LockLoad::operations).sum()
                - loads.stream().mapToLong(LockLoad::phaseOperations).sum();
        long faultsLeft = FAULTS - faultsRun++;
        return Math.max(0, (MIN_OPERATIONS - before + faultsLeft - 1) / faultsLeft);
    }

    private static String primariesOn(int node) {
        List<String> held = new ArrayList<>();
        for (String index : List.of(PLUGIN_LOCK_INDEX, TreeLocks.Builder.DEFAULT_LOCK_INDEX)) {
            if (cluster.primaryNode(index, 0) == node) {
                held.add(index);
            }
        }
        // A frozen master costs more than fault detection (an election, then publications that wait for the frozen
        // node up to cluster.publish.timeout): the row says which role the node had.
        String master = cluster.masterNode() == node ? "elected master, " : "";
        return held.isEmpty()
                ? " (" + master + "no lock index primary)"
                : " (" + master + "primary of " + String.join(", ", held) + ")";
    }

    /** Waits until the loads did {@code total} operations in this phase, each at least {@code each}. */
    private static void awaitOperations(long total, long each, String what) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + PATIENCE.multipliedBy(2).toNanos();
        long nextReport = start;
        while (loads.stream().mapToLong(LockLoad::phaseOperations).sum() < total
                || loads.stream().anyMatch(l -> l.phaseOperations() < each)) {
            long now = System.nanoTime();
            if (now - nextReport >= 0) {
                System.out.printf(
                        "%s: %s after %d s%n",
                        what,
                        loads.stream()
                                .map(l -> l.backend() + " " + l.phaseOperations())
                                .toList(),
                        (now - start) / 1_000_000_000);
                nextReport = now + 30_000_000_000L;
            }
            assertThat(now)
                    .as("%d operations, %d per backend, in time: %s", total, each, what)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
