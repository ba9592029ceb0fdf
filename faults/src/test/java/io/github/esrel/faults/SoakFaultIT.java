package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.JsonData;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The fault soak: the mix of the fault suite, run continuously for as long as {@code -Desrel.soak} says
 * ({@code 10m}, {@code 90s}, {@code 1h}), not a test of the build (without the property it is skipped, also
 * with {@code -Pfaults}). On the suite's shared 3-node cluster ({@link FaultCluster}) three loads run the whole
 * time: contended tree locks on the plugin and on the lock-document fallback ({@link LockLoad}, each watched
 * by its {@link GrantObserver}), and {@value OccLoad#WRITERS} OCC writers of one counter with per-writer shares
 * ({@link OccLoad}). Meanwhile faults are injected in turn until the time is used up (the running one is
 * finished): {@code kill -9} of the node holding the primary of one of the three indices that matter (the
 * plugin's lock index, the fallback's, the counter's; the next one each round) with a restart; a freeze
 * (SIGSTOP) of such a node (one index on from the kill's) until the others have removed it, plus 5 s; a {@code read_only_allow_delete}
 * block on the counter's index for 10 s; a rolling restart. Each fault is healed in a {@code finally}
 * (restarted, thawed, lifted) and the cluster awaited green before the next, after 5 s of calm.
 *
 * <p>Per injection and capability a {@code FIGURE} row is printed: the operations done while the fault was in
 * effect (from the fault taking effect to it being healed: locks answered, increments acknowledged), the
 * violations found (new overlapping conflicting grants or out-of-order tokens; acknowledged increments
 * missing from a real-time read of the counter taken after the heal), and the recovery: from the fault taking
 * effect to the first successful operation sent after it (the lock probe's answer, the acknowledgement of an
 * increment). At the end the loads stop, every lock must be free within its lease, no grant may be left live,
 * every acknowledged increment must be in its writer's share; a markdown summary table is printed and written
 * to {@code target/soak-summary.md}; every violation count must be 0.
 */
@EsrelTest
@EnabledIfSystemProperty(
        named = SoakDuration.PROPERTY,
        matches = ".+",
        disabledReason = "a soak, not a test: runs only with -Desrel.soak=<duration>, e.g. 10m")
class SoakFaultIT {

    /** Read before the cluster is started, so a bad value costs no node start. */
    private static final Duration SOAK = SoakDuration.parse(System.getProperty(SoakDuration.PROPERTY));

    @Cluster
    static final EsCluster cluster = FaultCluster.build();

    private static final String PLUGIN_LOCK_INDEX = ".esrel-treelocks-1";
    private static final String OCC_INDEX = "soak-occ-counter";
    private static final String OCC_ID = "counter";
    private static final String OCC_CAPABILITY = "OCC counter, " + OccLoad.WRITERS + " writers";
    /** The indices whose primary's node a kill or a freeze aims at, one after the other. */
    private static final List<String> AIMED_AT =
            List.of(PLUGIN_LOCK_INDEX, TreeLocks.Builder.DEFAULT_LOCK_INDEX, OCC_INDEX);

    private static final String BLOCK = "read_only_allow_delete";
    private static final Duration BLOCKED_FOR = Duration.ofSeconds(10);
    private static final Duration FROZEN_PAST_REMOVAL = Duration.ofSeconds(5);
    private static final Duration CALM = Duration.ofSeconds(5);
    private static final Duration PATIENCE = Duration.ofMinutes(5);
    private static final int THREADS = 4;
    private static final int WARM_UP = 100;

    /** One fault kind: injects it (aiming by the round number), calls back once it is in effect, heals it. */
    private record Fault(String name, Injection injection) {}

    private interface Injection {
        /** @return which node or index it hit, for the figure row */
        String run(int round, Runnable inEffect) throws Exception;
    }

    private final List<LockLoad> locks = new ArrayList<>();
    private OccLoad occ;
    private final SoakTable table = new SoakTable();
    private long occMissingSoFar;

    @Test
    void shouldKeepEveryGuaranteeWhileFaultsCycleForTheWholeSoak() throws Exception {
        createLoads();
        List<Fault> faults = List.of(
                new Fault("kill -9 + restart", SoakFaultIT::kill),
                new Fault("SIGSTOP past fault detection", SoakFaultIT::freeze),
                new Fault(BLOCK + " on the counter, " + BLOCKED_FOR.toSeconds() + " s", SoakFaultIT::block),
                new Fault("rolling restart", SoakFaultIT::rollingRestart));
        System.out.println("soak of " + System.getProperty(SoakDuration.PROPERTY) + " on " + cluster);
        locks.forEach(LockLoad::start);
        occ.start();
        int injections = 0;
        try {
            awaitWarm();
            long end = System.nanoTime() + SOAK.toNanos();
            do {
                Fault fault = faults.get(injections % faults.size());
                inject(injections, injections / faults.size(), fault);
                injections++;
                Thread.sleep(CALM.toMillis());
            } while (System.nanoTime() < end);
        } catch (Exception | AssertionError e) {
            System.out.println("the soak stopped at injection " + (injections + 1) + ": " + e);
            System.out.print(table.markdown(-1, -1)); // the rows so far: no whole-soak line
            throw e;
        } finally {
            stopLoads();
        }
        checkAndReport();
    }

    private void createLoads() throws IOException {
        ElasticsearchClient es = cluster.client();
        for (TreeLocks.Backend backend : List.of(TreeLocks.Backend.PLUGIN, TreeLocks.Backend.DOCUMENTS)) {
            String ns = "soak-locks-" + backend.name().toLowerCase(Locale.ROOT);
            for (String index : List.of(ns, ns + "-probe")) {
                es.indices()
                        .create(c -> c.index(index)
                                .settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
            }
            // Both lock indices exist before a fault aims at them: the plugin's on first use, the fallback's here.
            try (TreeLocks warm = TreeLocks.of(b -> b.client(es).index(ns).backend(backend))) {
                warm.acquire("/warm-up", LockMode.SHARED).orThrow().release();
            }
            locks.add(new LockLoad(es, backend, ns, ns + "-probe", THREADS));
        }
        es.indices()
                .create(c -> c.index(OCC_INDEX)
                        .settings(s -> s.numberOfShards("1")
                                .numberOfReplicas("1")
                                .otherSettings("index.write.wait_for_active_shards", JsonData.of("1"))));
        occ = OccLoad.on(es, OCC_INDEX, OCC_ID);
        cluster.waitForHealth("green", PATIENCE);
    }

    private void awaitWarm() throws InterruptedException {
        Faults.await(
                "every load to do " + WARM_UP + " operations",
                (int) PATIENCE.toSeconds(),
                () -> occ.operations() >= WARM_UP && locks.stream().allMatch(l -> l.operations() >= WARM_UP));
    }

    /** One injection: the fault, its heal, every capability answering again, the counter read; then its rows. */
    private void inject(int injection, int round, Fault fault) throws Exception {
        long[] violationsBefore =
                locks.stream().mapToLong(l -> l.observer.violations().size()).toArray();
        long[] expiredBefore =
                locks.stream().mapToLong(l -> l.observer.expiredOverlaps()).toArray();
        long[] opsAtFault = new long[locks.size() + 1];
        AtomicLong inEffect = new AtomicLong();
        System.out.printf("soak: injection %d, %s%n", injection + 1, fault.name());
        String hit = fault.injection().run(round, () -> {
            long now = System.nanoTime();
            occ.faultInEffect(now);
            for (int i = 0; i < locks.size(); i++) {
                opsAtFault[i] = locks.get(i).operations();
            }
            opsAtFault[locks.size()] = occ.operations();
            inEffect.set(now);
        });
        long healedMs = Faults.millisSince(inEffect.get());
        long[] opsDuring = new long[locks.size() + 1];
        for (int i = 0; i < locks.size(); i++) {
            opsDuring[i] = locks.get(i).operations() - opsAtFault[i];
        }
        opsDuring[locks.size()] = occ.operations() - opsAtFault[locks.size()];
        Faults.await(
                "every capability to answer again after " + fault.name(),
                (int) PATIENCE.toSeconds(),
                () -> occ.recoveryMs() >= 0
                        && locks.stream()
                                .allMatch(l -> l.recovery(inEffect.get()).answersAgainMs() >= 0));

        table.injected();
        String notes = "injection " + (injection + 1) + ", " + hit + ", fault to healed " + healedMs + " ms";
        for (int i = 0; i < locks.size(); i++) {
            LockLoad load = locks.get(i);
            long violations = load.observer.violations().size() - violationsBefore[i];
            long recovery = load.recovery(inEffect.get()).answersAgainMs();
            String capability = "tree locks (" + load.backend() + ")";
            table.add(fault.name(), capability, opsDuring[i], violations, recovery);
            Figures.row(
                    fault.name(),
                    capability,
                    opsDuring[i],
                    violations,
                    recovery,
                    notes + "; overlaps after a lease ended " + (load.observer.expiredOverlaps() - expiredBefore[i])
                            + "; ms = fault in effect to the answer of the first probe sent after it");
        }
        OccLoad.Check check = occ.check();
        long violations =
                Math.max(0, check.missing() - occMissingSoFar) + (check.total() == check.sumOfShares() ? 0 : 1);
        occMissingSoFar = Math.max(occMissingSoFar, check.missing());
        table.add(fault.name(), OCC_CAPABILITY, opsDuring[locks.size()], violations, occ.recoveryMs());
        Figures.row(
                fault.name(),
                OCC_CAPABILITY,
                opsDuring[locks.size()],
                violations,
                occ.recoveryMs(),
                notes + "; acknowledged so far " + check.acknowledged() + ", in the count " + check.total()
                        + ", missing " + check.missing() + ", primary term " + check.primaryTerm()
                        + "; ms = fault in effect to the first acknowledged increment sent after it");
    }

    private static String kill(int round, Runnable inEffect) throws Exception {
        String index = AIMED_AT.get(round % AIMED_AT.size());
        int victim = cluster.primaryNode(index, 0);
        String hit = "node-" + victim + primariesOn(victim);
        boolean killed = false;
        try {
            cluster.killNode(victim);
            killed = true;
            inEffect.run();
        } finally {
            if (killed) {
                cluster.startNode(victim);
            }
            cluster.waitForHealth("green", PATIENCE);
        }
        return hit;
    }

    private static String freeze(int round, Runnable inEffect) throws Exception {
        // One index on from the kill's: a short soak aims each at a different lock table, as TreeLockFaultIT does.
        String index = AIMED_AT.get((round + 1) % AIMED_AT.size());
        int victim = cluster.primaryNode(index, 0);
        String hit = "node-" + victim + primariesOn(victim);
        try {
            cluster.freezeNode(victim);
            inEffect.run();
            Faults.awaitRemoved(cluster, victim, PATIENCE);
            Thread.sleep(FROZEN_PAST_REMOVAL.toMillis());
        } finally {
            cluster.thawNode(victim); // nothing if it is not frozen
            cluster.waitForHealth("green", PATIENCE);
        }
        return hit;
    }

    private static String block(int round, Runnable inEffect) throws Exception {
        try {
            cluster.setBlock(OCC_INDEX, BLOCK);
            inEffect.run();
            Thread.sleep(BLOCKED_FOR.toMillis());
        } finally {
            cluster.removeBlock(OCC_INDEX, BLOCK); // nothing if it is not set
        }
        return "index " + OCC_INDEX;
    }

    private static String rollingRestart(int round, Runnable inEffect) {
        inEffect.run();
        cluster.rollingRestart(PATIENCE);
        return "every node in turn";
    }

    private void stopLoads() throws Exception {
        Exception first = null;
        for (LockLoad load : locks) {
            try {
                load.stop();
            } catch (Exception e) {
                first = first == null ? e : addSuppressed(first, e);
            }
        }
        try {
            occ.stop();
        } catch (Exception e) {
            first = first == null ? e : addSuppressed(first, e);
        }
        if (first != null) {
            throw first;
        }
    }

    private static Exception addSuppressed(Exception to, Exception e) {
        to.addSuppressed(e);
        return to;
    }

    /** The checks over the whole soak, the summary table, then the assertions. */
    private void checkAndReport() throws Exception {
        long wholeOps = occ.operations();
        long wholeViolations = 0;
        List<String> problems = new ArrayList<>();
        for (LockLoad load : locks) {
            wholeOps += load.operations();
            List<String> seen = load.observer.violations();
            long overlaps =
                    seen.stream().filter(v -> v.contains(" granted while ")).count();
            long tokens = seen.size() - overlaps;
            String freeNote;
            try {
                freeNote = "all free " + load.awaitAllFree(LockLoad.TTL.multipliedBy(6)) + " ms after the load stopped";
            } catch (AssertionError e) {
                problems.add(e.getMessage());
                wholeViolations++;
                freeNote = "NOT all free: " + e.getMessage();
            }
            wholeViolations += seen.size() + load.observer.live();
            seen.forEach(v -> problems.add(load.backend() + ": " + v));
            if (load.observer.live() > 0) {
                problems.add(load.backend() + ": " + load.observer.live() + " grants left live");
            }
            Figures.row(
                    "whole soak",
                    "tree locks (" + load.backend() + ")",
                    load.operations(),
                    seen.size() + load.observer.live(),
                    -1,
                    load.observer.checked() + " grants checked: overlapping conflicting grants " + overlaps
                            + ", tokens not increasing " + tokens + ", left live " + load.observer.live()
                            + ", overlaps after a lease ended " + load.observer.expiredOverlaps() + "; "
                            + freeNote);
        }
        OccLoad.Check end = occ.check();
        wholeViolations += end.violations();
        if (end.violations() > 0) {
            problems.add("counter: " + end);
        }
        Figures.row(
                "whole soak",
                OCC_CAPABILITY,
                end.acknowledged(),
                end.violations(),
                -1,
                "acknowledged " + end.acknowledged() + ", in the count " + end.total() + ", sum of shares "
                        + end.sumOfShares() + ", acknowledged but missing " + end.missing()
                        + ", applied without acknowledgement " + (end.total() - end.acknowledged()) + ", gave up "
                        + occ.gaveUp() + ", errors " + occ.errors() + ", primary term " + end.primaryTerm());

        String summary = "## Fault soak, " + System.getProperty(SoakDuration.PROPERTY) + " on " + cluster.size()
                + " nodes (Elasticsearch " + cluster.version() + ")\n\n" + table.markdown(wholeOps, wholeViolations);
        System.out.println();
        System.out.print(summary);
        System.out.flush();
        Path file = Path.of("target", "soak-summary.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, summary);

        assertThat(problems).as("violations over the whole soak").isEmpty();
        assertThat(wholeViolations).isZero();
        assertThat(table.violations()).as("violations during the faults").isZero();
        assertThat(end.missingByWriter())
                .as("acknowledged increments missing from their writer's share")
                .isEmpty();
        assertThat(end.sumOfShares())
                .as("the total is the sum of the writers' shares")
                .isEqualTo(end.total());
    }

    private static String primariesOn(int node) {
        List<String> held = new ArrayList<>();
        for (String index : AIMED_AT) {
            if (cluster.primaryNode(index, 0) == node) {
                held.add(index);
            }
        }
        return held.isEmpty() ? " (no aimed-at primary)" : " (primary of " + String.join(", ", held) + ")";
    }
}
