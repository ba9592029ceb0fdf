package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.json.JsonData;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.denorm.JobState;
import io.github.esrel.denorm.PropagationException;
import io.github.esrel.denorm.PropagationJob;
import io.github.esrel.denorm.PropagationResult;
import io.github.esrel.denorm.Propagator;
import io.github.esrel.denorm.Relation;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.testenv.NetworkPartitions;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Network partitions on the suite's shared 3-node cluster ({@link FaultCluster}, partitionable: each node runs as its
 * own OS user, and testenv cuts the transport links between nodes with iptables owner rules; HTTP stays reachable).
 * Three loads run through every partition of the class: contended tree locks on the plugin and on the lock-document
 * fallback ({@link LockLoad}, each watched by a {@link GrantObserver}: no overlapping conflicting grants, fencing
 * tokens strictly increasing per path across every fault), and {@value #COUNTERS} OCC counters of {@value #WRITERS}
 * writers each through {@code Occ} with its write log ({@link OccLoad}: every acknowledged increment in its writer's
 * share, and no share above its writer's acknowledged plus unknown increments, so a write applied but answered 409 is
 * never applied twice).
 *
 * <p>The faults, in order: the node holding the plugin lock index's primary isolated; the master in the minority of a
 * split (links reset, then the same with packets dropped); a bridge (the master and another node no longer see each
 * other, both see the third); a lock holder's JVM cut off from the cluster while it keeps running (behind {@link
 * BlackholeProxy}s: its lease ends, a new holder gets a larger token, and after the heal every fenced write of the
 * old holder is refused); a random schedule of partitions and heals ({@value #SCHEDULE_PROPERTY}, default {@value
 * #SCHEDULE_DEFAULT}); last, a propagation of 20,000 children with the node holding most of the child index's
 * primaries isolated mid-job, which must bring every child up to date after the heal (resumed if it stopped); then
 * leader election through both adapters ({@link LeaderElection}: ShedLock's provider on lock documents, Spring
 * Integration's registry with its {@code LockRegistryLeaderInitiator} on the plugin, one candidate per node behind
 * its own proxy, the leader writing a resource fenced by its token): the leaders cut off from the cluster while they
 * run (another candidate leads with a larger token, the old leader's writes after the heal are refused), and the
 * leaders moved to the master's candidate before a split with the master in the minority (a majority candidate takes
 * over; accepted tokens never decrease, in the store's order and in real time). Each
 * partition lasts until the majority has removed the cut-off node, plus {@link #HOLD}; then
 * it is healed and the cluster awaited green. Per fault a row: operations during the fault, definite and unknown
 * outcomes, violations, the longest time without an answer during the fault, and the time from the heal to the
 * first answer; the last test stops the loads, checks everything over the whole run and prints the markdown table
 * (also to {@code target/partition-summary.md}).
 */
@EsrelTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PartitionFaultIT {

    @Cluster
    static final EsCluster cluster = FaultCluster.build();

    static final String SCHEDULE_PROPERTY = "esrel.partitions";
    static final String SCHEDULE_DEFAULT = "40s";
    private static final String PLUGIN_LOCK_INDEX = ".esrel-treelocks-1";
    private static final String OCC_INDEX = "partition-occ";
    private static final int COUNTERS = 2;
    private static final int WRITERS = 6;
    private static final int THREADS = 3;
    private static final Duration HOLD = Duration.ofSeconds(5);
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final String PATH = "/reports";
    private static final int CHILDREN = 20_000;

    private static final List<LockLoad> locks = new ArrayList<>();
    private static final List<OccLoad> counters = new ArrayList<>();
    private static final List<LeaderElection> elections = new ArrayList<>();
    private static final List<String> rows = new ArrayList<>();
    private static final List<String> problems = new ArrayList<>();
    private static boolean loadsRunning;

    @BeforeAll
    static void startLoads() throws Exception {
        assumeTrue(
                cluster.supportsPartitions(),
                "the cluster cannot be partitioned here (needs root, iptables and its owner match; see the log)");
        ElasticsearchClient es = cluster.client();
        for (TreeLocks.Backend backend : List.of(TreeLocks.Backend.PLUGIN, TreeLocks.Backend.DOCUMENTS)) {
            String ns = "partition-locks-" + backend.name().toLowerCase(Locale.ROOT);
            for (String index : List.of(ns, ns + "-probe")) {
                es.indices()
                        .create(c -> c.index(index)
                                .settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
            }
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
        for (int i = 0; i < COUNTERS; i++) {
            counters.add(OccLoad.on(es, OCC_INDEX, "counter-" + i, WRITERS, "_esrel_writes"));
        }
        cluster.waitForHealth("green", PATIENCE);
        locks.forEach(LockLoad::start);
        counters.forEach(OccLoad::start);
        loadsRunning = true;
        Faults.await(
                "every load to do 50 operations",
                (int) PATIENCE.toSeconds(),
                () -> counters.stream().allMatch(c -> c.operations() >= 50)
                        && locks.stream().allMatch(l -> l.operations() >= 50));
        rows.add("| fault | capability | operations during | definite | unknown | violations | longest without"
                + " an answer during, ms | heal to first answer, ms |");
        rows.add("|---|---|---:|---:|---:|---:|---:|---:|");
    }

    @AfterEach
    void heal() {
        cluster.partitions().heal();
    }

    @AfterAll
    static void stopLoads() throws Exception {
        closeElections();
        if (loadsRunning) {
            stop();
        }
    }

    @Test
    @Order(1)
    void shouldKeepLocksAndCountersWhenTheLockIndexPrimaryIsIsolated() throws Exception {
        int victim = cluster.primaryNode(PLUGIN_LOCK_INDEX, 0);
        partition(
                "node of the lock index's primary isolated (node-" + victim
                        + (victim == cluster.masterNode() ? ", the master" : "") + ")",
                NetworkPartitions.Cut.RESET,
                p -> p.isolate(victim),
                victim);
    }

    @Test
    @Order(2)
    void shouldKeepLocksAndCountersWithTheMasterInTheMinority() throws Exception {
        int master = cluster.masterNode();
        partition(
                "split, master node-" + master + " in the minority",
                NetworkPartitions.Cut.RESET,
                p -> p.split(List.of(master)),
                master);
    }

    @Test
    @Order(3)
    void shouldKeepLocksAndCountersWithTheMasterInTheMinorityBehindDroppedPackets() throws Exception {
        int master = cluster.masterNode();
        partition(
                "split, master node-" + master + " in the minority, packets dropped",
                NetworkPartitions.Cut.DROP,
                p -> p.split(List.of(master)),
                master);
    }

    @Test
    @Order(4)
    void shouldKeepLocksAndCountersThroughABridge() throws Exception {
        int master = cluster.masterNode();
        int bridge = (master + 1) % 3;
        int end = (master + 2) % 3;
        // The master and `end` no longer see each other: the master removes `end`, which cannot rejoin through the
        // bridge.
        partition(
                "bridge: master node-" + master + " and node-" + end + " cut, both see node-" + bridge,
                NetworkPartitions.Cut.RESET,
                p -> p.bridge(master, bridge, end),
                end);
    }

    @ParameterizedTest
    @Order(5)
    @EnumSource(
            value = TreeLocks.Backend.class,
            names = {"PLUGIN", "DOCUMENTS"})
    void shouldEndTheLeaseOfAHolderCutOffFromTheClusterAndRefuseItsFencedWrites(TreeLocks.Backend backend)
            throws Exception {
        ElasticsearchClient es = cluster.client();
        String index = "partition-holder-" + backend.name().toLowerCase(Locale.ROOT);
        es.indices()
                .create(c -> c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
        cluster.waitForHealth("green", PATIENCE);
        List<BlackholeProxy> proxies = new ArrayList<>();
        try {
            for (URI node : cluster.httpUris()) {
                proxies.add(new BlackholeProxy(node));
            }
            String nodes = proxies.stream().map(p -> p.uri().toString()).collect(Collectors.joining(","));
            try (ChildJvm holder = ChildJvm.start(
                            "partitioned-holder-" + backend,
                            LockHolderChild.class,
                            List.of(nodes, backend.name(), index, PATH, Long.toString(LEASE.toMillis())));
                    TreeLocks locks = TreeLocks.of(
                            b -> b.client(es).index(index).backend(backend).owner("new-holder"))) {
                long oldToken = Long.parseLong(holder.expect("HELD", PATIENCE));
                holder.expect("WROTE", PATIENCE);

                proxies.forEach(p -> p.blackhole(true));
                long cutAt = System.nanoTime();
                TreeLock lock = locks.acquire(LockRequest.of(
                                r -> r.path(PATH).mode(LockMode.EXCLUSIVE).maxWait(PATIENCE)))
                        .orThrow();
                long takeoverMs = Faults.millisSince(cutAt);
                es.index(i -> i.index(index)
                        .id(LockHolderChild.REPORT)
                        .version(lock.token())
                        .versionType(VersionType.External)
                        .document(Map.of("writer", "new", "step", 0)));
                GetResponse<ObjectNode> ledger =
                        es.get(g -> g.index(index).id(LockHolderChild.LEDGER), ObjectNode.class);
                es.index(i -> i.index(index)
                        .id(LockHolderChild.LEDGER)
                        .ifSeqNo(ledger.seqNo())
                        .ifPrimaryTerm(ledger.primaryTerm())
                        .document(Map.of("writer", "new", "step", 0)));
                List<String> before = snapshot(es, index);

                proxies.forEach(p -> p.blackhole(false));
                long healedAt = System.nanoTime();
                holder.send("WRITE");
                List<String> attempts = new ArrayList<>();
                for (String line = holder.read(PATIENCE); !line.equals("ATTEMPTS"); line = holder.read(PATIENCE)) {
                    attempts.add(line);
                }
                long healToAnswerMs = Faults.millisSince(healedAt);
                List<String> after = snapshot(es, index);
                holder.send("STATE");
                String state = holder.expect("STATE", PATIENCE);
                String closed = holder.expect("CLOSE", PATIENCE);
                assertThat(holder.waitFor(PATIENCE)).as("the child exits").isTrue();
                boolean released = lock.release();

                long accepted = attempts.stream()
                        .filter(a -> !a.endsWith(" 409 version_conflict_engine_exception"))
                        .count();
                long violations = accepted
                        + (before.equals(after) ? 0 : 1)
                        + (lock.token() > oldToken ? 0 : 1)
                        + (state.startsWith("false ") && !state.endsWith(" -") ? 0 : 1)
                        + (closed.equals("LeaseLostException") ? 0 : 1)
                        + (released ? 0 : 1);
                String fault = "lock holder's JVM cut off from every node (" + backend + ")";
                String capability = "tree lock lease + fencing (" + backend + ")";
                row(fault, capability, attempts.size(), attempts.size(), 0, violations, takeoverMs, healToAnswerMs);
                Figures.row(
                        fault,
                        capability,
                        attempts.size(),
                        violations,
                        takeoverMs,
                        "ms = cut to the new holder's grant, lease " + LEASE.toMillis() + " ms; tokens " + oldToken
                                + " -> " + lock.token() + "; " + attempts + "; " + state + "; close " + closed);

                assertThat(lock.token()).as("the new holder's token").isGreaterThan(oldToken);
                assertThat(attempts)
                        .as("four late writes of the cut-off holder")
                        .hasSize(4)
                        .allSatisfy(a -> assertThat(a).endsWith(" 409 version_conflict_engine_exception"));
                assertThat(after).as("the new holder's documents").isEqualTo(before);
                assertThat(state)
                        .as("isHeld and the lost reason")
                        .startsWith("false ")
                        .doesNotEndWith(" -");
                assertThat(closed).isEqualTo("LeaseLostException");
                assertThat(released)
                        .as("the new holder held its lock throughout")
                        .isTrue();
            }
        } finally {
            for (BlackholeProxy p : proxies) {
                p.close();
            }
        }
    }

    @Test
    @Order(6)
    void shouldKeepLocksAndCountersThroughARandomScheduleOfPartitions() throws Exception {
        Duration length = SoakDuration.parse(System.getProperty(SCHEDULE_PROPERTY, SCHEDULE_DEFAULT));
        long seed = Long.getLong("esrel.partitions.seed", System.nanoTime());
        Random random = new Random(seed);
        NetworkPartitions partitions = cluster.partitions();
        Snapshot at = Snapshot.take();
        long start = System.nanoTime();
        long end = start + length.toNanos();
        List<String> done = new ArrayList<>();
        long lastHeal = start;
        while (System.nanoTime() < end) {
            int a = random.nextInt(3);
            int b = (a + 1 + random.nextInt(2)) % 3;
            int c = 3 - a - b;
            partitions.cut(random.nextInt(3) == 0 ? NetworkPartitions.Cut.DROP : NetworkPartitions.Cut.RESET);
            switch (random.nextInt(3)) {
                case 0 -> {
                    partitions.isolate(a);
                    done.add("isolate " + a);
                }
                case 1 -> {
                    partitions.split(List.of(a, b));
                    done.add("split " + a + b + "|" + c);
                }
                default -> {
                    partitions.bridge(a, b, c);
                    done.add("bridge " + a + "-" + b + "-" + c);
                }
            }
            Thread.sleep(2_000 + random.nextInt(6_000));
            partitions.heal();
            partitions.cut(NetworkPartitions.Cut.RESET);
            lastHeal = System.nanoTime();
            Thread.sleep(1_000 + random.nextInt(4_000));
        }
        cluster.waitForHealth("green", PATIENCE);
        record(
                "random schedule of " + done.size() + " partitions over " + length.toSeconds() + " s (seed " + seed
                        + ")",
                at,
                start,
                lastHeal,
                String.join(", ", done));
    }

    @Test
    @Order(7)
    void shouldBringEveryChildUpToDateAfterAPartitionMidPropagation() throws Exception {
        ElasticsearchClient es = cluster.client();
        String users = "partition-prop-users";
        String posts = "partition-prop-posts";
        es.indices()
                .create(c -> c.index(users).settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
        es.indices().create(c -> c.index(posts).withJson(new StringReader("""
            {"settings": {"number_of_shards": 3, "number_of_replicas": 1},
             "mappings": {"properties": {"user": {"properties": {"id": {"type": "keyword"},
               "name": {"type": "keyword"}}}}}}""")));
        es.index(i -> i.index(users).id("1").document(Map.of("name", "John Smith")));
        for (int from = 0; from < CHILDREN; from += 5000) {
            List<BulkOperation> ops = new ArrayList<>();
            for (int i = from; i < Math.min(CHILDREN, from + 5000); i++) {
                String id = "p" + i;
                ops.add(BulkOperation.of(o -> o.index(x -> x.index(posts)
                        .id(id)
                        .document(Map.of("title", "post " + id, "user", Map.of("id", "1", "name", "John Smith"))))));
            }
            assertThat(es.bulk(b -> b.operations(ops)).errors())
                    .as("fixture bulk")
                    .isFalse();
        }
        cluster.waitForHealth("green", PATIENCE);
        es.index(i -> i.index(users).id("1").document(Map.of("name", "John Q. Smith")));
        Propagator propagator = Propagator.of(b -> b.client(es)
                .relation(Relation.of(r -> r.name("partition-post-author")
                        .parentIndex(users)
                        .childIndex(posts)
                        .parentIdField("user.id")
                        .copy("name", "user.name")))
                .batchSize(500));

        PropagationJob job = propagator.start("1");
        Faults.await(
                "the job to be a fifth done",
                (int) PATIENCE.toSeconds(),
                () -> job.isDone() || job.progress().counts().done() >= CHILDREN / 5);
        long doneAtCut = job.progress().counts().done();
        int victim = Faults.nodeWithMostPrimaries(es, posts);
        NetworkPartitions partitions = cluster.partitions();
        long cutAt = System.nanoTime();
        try {
            partitions.isolate(victim);
            Faults.awaitRemoved(cluster, victim, PATIENCE);
            Thread.sleep(HOLD.toMillis());
        } finally {
            partitions.heal();
        }
        long healedAt = System.nanoTime();
        cluster.waitForHealth("green", PATIENCE);
        PropagationResult result;
        String stopped = "";
        try {
            result = job.await();
        } catch (PropagationException e) {
            stopped = "stopped once (" + e.getMessage() + "), resumed; ";
            result = propagator.resume(job.id());
        }
        if (result.state() != JobState.COMPLETED) {
            stopped = "ended " + result.state() + ", resumed; ";
            result = propagator.resume(result.jobId());
        }
        long finishedMs = Faults.millisSince(healedAt);
        es.indices().refresh(r -> r.index(posts));
        long upToDate = es.count(c -> c.index(posts)
                        .query(q -> q.term(t -> t.field("user.name").value("John Q. Smith"))))
                .count();
        long all = es.count(c -> c.index(posts)).count();
        long violations = (CHILDREN - upToDate) + (all == CHILDREN ? 0 : 1);
        row(
                "node-" + victim + " (most primaries of the child index) isolated mid-propagation at " + doneAtCut
                        + " of " + CHILDREN + " children; " + stopped + "cut to heal "
                        + (healedAt - cutAt) / 1_000_000 + " ms",
                "propagation of " + CHILDREN + " children",
                result.counts().written(),
                result.counts().written(),
                0,
                violations,
                -1,
                finishedMs);

        assertThat(doneAtCut).as("the partition came mid-job").isBetween(1L, CHILDREN - 1L);
        assertThat(result.state()).as(result.toString()).isEqualTo(JobState.COMPLETED);
        assertThat(all).as("children").isEqualTo(CHILDREN);
        assertThat(upToDate).as("children carrying the new parent value").isEqualTo(CHILDREN);
    }

    @Test
    @Order(8)
    void shouldFenceALeaderCutOffFromTheClusterAndElectAnotherThroughBothAdapters() throws Exception {
        List<LeaderElection> all = elections();
        List<LeaderElection.Candidate> leaders = new ArrayList<>();
        long[] oldTokens = new long[all.size()];
        int[] violationsBefore = new int[all.size()];
        for (int i = 0; i < all.size(); i++) {
            LeaderElection.Candidate leader = all.get(i).awaitLeader(System.nanoTime(), PATIENCE);
            leaders.add(leader);
            oldTokens[i] = leader.leading;
            violationsBefore[i] = all.get(i).violations().size();
        }
        long[] takeoverMs = new long[all.size()];
        long[] newTokens = new long[all.size()];
        long cutAt = System.nanoTime();
        leaders.forEach(c -> c.cutOff(true));
        long healedAt;
        try {
            for (int i = 0; i < all.size(); i++) {
                LeaderElection e = all.get(i);
                long old = oldTokens[i];
                int oldId = leaders.get(i).id;
                Faults.await(
                        e.adapter + ": another candidate to lead and write with a larger token",
                        (int) PATIENCE.toSeconds(),
                        () -> e.firstWrite(w -> accepted(w) && w.token() > old && w.candidate() != oldId)
                                .isPresent());
                LeaderElection.Write first = e.firstWrite(w -> accepted(w) && w.token() > old && w.candidate() != oldId)
                        .orElseThrow();
                takeoverMs[i] = (first.answered() - cutAt) / 1_000_000;
                newTokens[i] = first.token();
            }
            Thread.sleep(1_000); // the new leaders write on while the old ones are still cut off
        } finally {
            leaders.forEach(c -> c.cutOff(false));
            healedAt = System.nanoTime();
        }
        for (int i = 0; i < all.size(); i++) {
            LeaderElection e = all.get(i);
            LeaderElection.Candidate old = leaders.get(i);
            long oldToken = oldTokens[i];
            Faults.await(
                    e.adapter + ": the cut-off leader to step down",
                    (int) PATIENCE.toSeconds(),
                    () -> old.leading != oldToken);
            // The old leader may have learnt it lost the lead while cut off (within its lease), and then made its
            // last write before the heal. A write of its old token delayed past the heal (one in flight, a paused
            // thread) must be refused by the fence.
            e.write(old, oldToken);
            Faults.await(
                    e.adapter + ": a write of the old leader's token after the heal refused",
                    (int) PATIENCE.toSeconds(),
                    () -> e.firstWrite(w -> w.candidate() == old.id
                                    && w.token() == oldToken
                                    && w.sent() >= healedAt
                                    && w.outcome() == LeaderElection.Outcome.REFUSED)
                            .isPresent());
            Faults.await(
                    e.adapter + ": a leader's write accepted after the heal",
                    (int) PATIENCE.toSeconds(),
                    () -> e.leaderAgainMs(healedAt) >= 0);
            List<LeaderElection.Write> late = e.writes().stream()
                    .filter(w -> w.candidate() == old.id && w.token() == oldToken && w.sent() >= cutAt)
                    .toList();
            long lateAccepted = late.stream()
                    .filter(w -> w.sent() >= healedAt && accepted(w))
                    .count();
            int violations = e.violations().size() - violationsBefore[i] + (int) lateAccepted;
            electionRow(
                    "leader's candidate cut off from the cluster while it runs (tokens " + oldToken + " -> "
                            + newTokens[i] + ", new leader's first write " + takeoverMs[i]
                            + " ms after the cut; the old leader stepped down "
                            + (e.steppedDownAt(oldToken) - cutAt) / 1_000_000 + " ms after the cut (healed at "
                            + (healedAt - cutAt) / 1_000_000 + " ms), its "
                            + late.size() + " writes after the cut: " + outcomes(late) + ")",
                    e,
                    cutAt,
                    healedAt,
                    violations);
            assertThat(newTokens[i]).as("the new leader's token").isGreaterThan(oldToken);
            assertThat(lateAccepted)
                    .as("writes of the cut-off leader accepted after the heal")
                    .isZero();
            assertThat(e.violations()).as(e.adapter + " fence").isEmpty();
        }
        printElectionEvents();
    }

    @Test
    @Order(9)
    void shouldElectALeaderOnTheMajorityWhenTheLeadersAreWithTheMasterInTheMinority() throws Exception {
        List<LeaderElection> all = elections();
        try {
            int master = cluster.masterNode();
            long[] oldTokens = new long[all.size()];
            int[] violationsBefore = new int[all.size()];
            for (int i = 0; i < all.size(); i++) {
                oldTokens[i] = all.get(i).moveLeaderTo(master, PATIENCE).leading;
                violationsBefore[i] = all.get(i).violations().size();
            }
            String[] atCut = new String[all.size()];
            for (int i = 0; i < all.size(); i++) {
                atCut[i] = all.get(i).candidates().stream()
                        .filter(c -> c.leading > 0)
                        .map(c -> "node-" + c.id + "'s candidate")
                        .collect(Collectors.joining(", "));
            }
            // Not through partition(): the loads' rows of a split with the master in the minority are the second
            // fault's, and waiting for every load to answer after the heal here would only add their recovery.
            NetworkPartitions partitions = cluster.partitions();
            long cutAt = System.nanoTime();
            long healedAt;
            try {
                partitions.split(List.of(master));
                Faults.awaitRemoved(cluster, master, PATIENCE);
                Thread.sleep(HOLD.toMillis());
            } finally {
                partitions.heal();
                healedAt = System.nanoTime();
            }
            Window window = new Window(cutAt, healedAt);
            for (int i = 0; i < all.size(); i++) {
                LeaderElection e = all.get(i);
                long oldToken = oldTokens[i];
                Faults.await(
                        e.adapter + ": a leader's write accepted after the heal",
                        (int) PATIENCE.toSeconds(),
                        () -> e.leaderAgainMs(window.healedAt()) >= 0);
                String takeover = e.firstWrite(w -> accepted(w) && w.token() > oldToken && w.candidate() != master)
                        .map(w -> "node-" + w.candidate() + "'s candidate led with token " + w.token()
                                + ", first write " + (w.answered() - window.cutAt()) / 1_000_000 + " ms after the cut")
                        .orElse("no takeover");
                Faults.await(
                        e.adapter + ": the leader of the minority to step down",
                        (int) PATIENCE.toSeconds(),
                        () -> e.steppedDownAt(oldToken) >= 0);
                long downMs = (e.steppedDownAt(oldToken) - window.cutAt()) / 1_000_000;
                long healMs = (window.healedAt() - window.cutAt()) / 1_000_000;
                List<LeaderElection.Write> old = e.writes().stream()
                        .filter(w -> w.candidate() == master && w.token() == oldToken && w.sent() >= window.cutAt())
                        .toList();
                electionRow(
                        "split, master node-" + master + " in the minority with the leader (token " + oldToken
                                + "; leading at the cut: " + atCut[i] + "); " + takeover
                                + "; the old leader stepped down "
                                + downMs + " ms after the cut (healed at " + healMs + " ms), its " + old.size()
                                + " writes after the cut: " + outcomes(old),
                        e,
                        window.cutAt(),
                        window.healedAt(),
                        e.violations().size() - violationsBefore[i]);
            }
            cluster.waitForHealth("green", PATIENCE);
            for (LeaderElection e : all) {
                List<LeaderElection.Write> writes = e.writes();
                long accepted =
                        writes.stream().filter(PartitionFaultIT::accepted).count();
                long unknown = writes.stream()
                        .filter(w -> w.outcome() == LeaderElection.Outcome.UNKNOWN)
                        .count();
                row(
                        "both leader-election tests (" + e.grants() + " leads; " + outcomes(writes) + ")",
                        "leader election (" + e.label() + ")",
                        writes.size(),
                        writes.size() - unknown,
                        unknown,
                        e.violations().size(),
                        -1,
                        -1);
                assertThat(accepted).isPositive();
                assertThat(e.violations()).as(e.adapter + " fence").isEmpty();
            }
        } finally {
            printElectionEvents();
            closeElections();
        }
    }

    @Test
    @Order(99)
    void shouldHaveLostNothingAcknowledgedAcrossEveryPartition() throws Exception {
        stop();
        long violations = 0;
        for (LockLoad load : locks) {
            List<String> seen = load.observer.violations();
            seen.forEach(v -> problems.add(load.backend() + ": " + v));
            if (load.observer.live() > 0) {
                problems.add(load.backend() + ": " + load.observer.live() + " grants left live");
            }
            long freeMs = load.awaitAllFree(LockLoad.TTL.multipliedBy(6));
            violations += seen.size() + load.observer.live();
            row(
                    "whole class (all free " + freeMs + " ms after the loads stopped)",
                    "tree locks (" + load.backend() + ")",
                    load.operations() + load.errors(),
                    load.operations(),
                    load.errors(),
                    seen.size() + load.observer.live(),
                    -1,
                    -1);
        }
        for (int i = 0; i < counters.size(); i++) {
            OccLoad counter = counters.get(i);
            OccLoad.Check check = counter.check();
            long v = check.violations() + check.beyondUnknown();
            violations += v;
            if (v > 0) {
                problems.add("counter-" + i + ": " + check);
            }
            row(
                    "whole class",
                    "OCC counter-" + i + " (write log), final " + check.total(),
                    check.acknowledged() + counter.unknowns(),
                    check.acknowledged(),
                    counter.unknowns(),
                    v,
                    -1,
                    -1);
            System.out.println("counter-" + i + ": " + check + ", unknown " + counter.unknowns() + ", gave up "
                    + counter.gaveUp() + ", errors " + counter.errors());
        }
        String summary = "## Network partitions on " + cluster.size() + " nodes (Elasticsearch " + cluster.version()
                + ")\n\n" + String.join("\n", rows) + "\n";
        System.out.println();
        System.out.print(summary);
        System.out.flush();
        Path file = Path.of("target", "partition-summary.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, summary);
        assertThat(problems).as("violations").isEmpty();
        assertThat(violations).isZero();
    }

    /**
     * One fault: cut, wait until the majority removed {@code removed}, hold, heal, wait for green and answers.
     *
     * @return when it was cut and healed (nanoTime)
     */
    private static Window partition(String fault, NetworkPartitions.Cut mode, PartitionCut cut, int removed)
            throws Exception {
        NetworkPartitions partitions = cluster.partitions();
        Snapshot at = Snapshot.take();
        long cutAt = System.nanoTime();
        long healedAt;
        try {
            partitions.cut(mode);
            cut.apply(partitions);
            Faults.awaitRemoved(cluster, removed, PATIENCE);
            long removedMs = Faults.millisSince(cutAt);
            Thread.sleep(HOLD.toMillis());
            fault = fault + "; removed after " + removedMs + " ms";
        } finally {
            partitions.heal();
            partitions.cut(NetworkPartitions.Cut.RESET);
            healedAt = System.nanoTime();
        }
        cluster.waitForHealth("green", PATIENCE);
        record(fault, at, cutAt, healedAt, "");
        return new Window(cutAt, healedAt);
    }

    /** When a partition was cut and healed (nanoTime). */
    private record Window(long cutAt, long healedAt) {}

    private interface PartitionCut {
        void apply(NetworkPartitions partitions);
    }

    /** The loads' counters at the start of a fault. */
    private record Snapshot(
            long[] lockOps,
            long[] lockErrors,
            long[] lockViolations,
            long[] occAcked,
            long[] occUnknown,
            long[] occMissing) {
        static Snapshot take() {
            int n = counters.size();
            long[] missing = new long[n];
            for (int i = 0; i < n; i++) {
                missing[i] = counters.get(i).check().missing();
            }
            return new Snapshot(
                    locks.stream().mapToLong(LockLoad::operations).toArray(),
                    locks.stream().mapToLong(LockLoad::errors).toArray(),
                    locks.stream()
                            .mapToLong(l -> l.observer.violations().size())
                            .toArray(),
                    counters.stream().mapToLong(OccLoad::operations).toArray(),
                    counters.stream().mapToLong(OccLoad::unknowns).toArray(),
                    missing);
        }
    }

    /** Waits until every load answers after the heal, then adds the fault's rows. */
    private static void record(String fault, Snapshot at, long cutAt, long healedAt, String notes) throws Exception {
        long[] occDuring = new long[counters.size()];
        long[] occUnknownDuring = new long[counters.size()];
        for (int i = 0; i < counters.size(); i++) {
            occDuring[i] = counters.get(i).operations() - at.occAcked()[i];
            occUnknownDuring[i] = counters.get(i).unknowns() - at.occUnknown()[i];
        }
        long[] lockDuring = new long[locks.size()];
        long[] lockErrorsDuring = new long[locks.size()];
        for (int i = 0; i < locks.size(); i++) {
            lockDuring[i] = locks.get(i).operations() - at.lockOps()[i];
            lockErrorsDuring[i] = locks.get(i).errors() - at.lockErrors()[i];
        }
        counters.forEach(c -> c.faultInEffect(healedAt));
        Faults.await(
                "every load to answer after the heal of: " + fault,
                (int) PATIENCE.toSeconds(),
                () -> counters.stream().allMatch(c -> c.recoveryMs() >= 0)
                        && locks.stream().allMatch(l -> l.recovery(healedAt).answersAgainMs() >= 0));
        for (int i = 0; i < locks.size(); i++) {
            LockLoad load = locks.get(i);
            long violations = load.observer.violations().size() - at.lockViolations()[i];
            row(
                    fault,
                    "tree locks (" + load.backend() + ")",
                    lockDuring[i] + lockErrorsDuring[i],
                    lockDuring[i],
                    lockErrorsDuring[i],
                    violations,
                    load.longestGapMs(cutAt, healedAt),
                    load.recovery(healedAt).answersAgainMs());
        }
        long occOps = 0;
        long occUnknown = 0;
        long occViolations = 0;
        long occRecovery = 0;
        for (int i = 0; i < counters.size(); i++) {
            OccLoad.Check check = counters.get(i).check();
            occOps += occDuring[i];
            occUnknown += occUnknownDuring[i];
            occViolations +=
                    Math.max(0, check.missing() - at.occMissing()[i]) + (check.total() == check.sumOfShares() ? 0 : 1);
            occRecovery = Math.max(occRecovery, counters.get(i).recoveryMs());
        }
        row(
                fault,
                "OCC counters (" + COUNTERS + " x " + WRITERS + " writers, write log)",
                occOps + occUnknown,
                occOps,
                occUnknown,
                occViolations,
                -1,
                occRecovery);
        if (!notes.isEmpty()) {
            System.out.println("partitions: " + notes);
        }
    }

    private static void row(
            String fault,
            String capability,
            long operations,
            long definite,
            long unknown,
            long violations,
            long unavailableMs,
            long recoveryMs) {
        rows.add("| " + fault + " | " + capability + " | " + operations + " | " + definite + " | " + unknown + " | "
                + violations + " | " + (unavailableMs < 0 ? "-" : unavailableMs) + " | "
                + (recoveryMs < 0 ? "-" : recoveryMs) + " |");
        Figures.row(
                fault,
                capability,
                operations,
                violations,
                recoveryMs,
                "definite " + definite + ", unknown " + unknown + ", longest without an answer " + unavailableMs
                        + " ms");
        if (violations > 0) {
            problems.add(fault + " / " + capability + ": " + violations + " violations");
        }
    }

    private static synchronized void stop() throws Exception {
        if (!loadsRunning) {
            return;
        }
        loadsRunning = false;
        for (LockLoad load : locks) {
            load.stop();
        }
        for (OccLoad counter : counters) {
            counter.stop();
        }
    }

    /** The leader elections of both adapters, started on first use (one candidate per node each). */
    private static List<LeaderElection> elections() throws Exception {
        if (elections.isEmpty()) {
            ElasticsearchClient es = cluster.client();
            Map<LeaderElection.Adapter, TreeLocks.Backend> backends = Map.of(
                    LeaderElection.Adapter.SPRING_INTEGRATION, TreeLocks.Backend.PLUGIN,
                    LeaderElection.Adapter.SHEDLOCK, TreeLocks.Backend.DOCUMENTS);
            for (LeaderElection.Adapter adapter : LeaderElection.Adapter.values()) {
                String index = "partition-leader-"
                        + adapter.name().toLowerCase(Locale.ROOT).replace('_', '-');
                for (String name : List.of(index, index + "-resource")) {
                    es.indices()
                            .create(c -> c.index(name)
                                    .settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
                }
            }
            cluster.waitForHealth("green", PATIENCE);
            for (LeaderElection.Adapter adapter : LeaderElection.Adapter.values()) {
                String index = "partition-leader-"
                        + adapter.name().toLowerCase(Locale.ROOT).replace('_', '-');
                elections.add(LeaderElection.start(
                        adapter, backends.get(adapter), cluster.httpUris(), index, index + "-resource"));
            }
        }
        return elections;
    }

    private static void printElectionEvents() {
        for (LeaderElection e : elections) {
            System.out.println(e.adapter + " leads: " + String.join("; ", e.events()));
        }
    }

    private static void closeElections() {
        elections.forEach(LeaderElection::close);
        elections.clear();
    }

    private static boolean accepted(LeaderElection.Write w) {
        return w.outcome() == LeaderElection.Outcome.ACCEPTED;
    }

    /** How many writes ended how, such as {@code 12 ACCEPTED, 3 REFUSED}. */
    private static String outcomes(List<LeaderElection.Write> writes) {
        Map<LeaderElection.Outcome, Long> by = new EnumMap<>(LeaderElection.Outcome.class);
        writes.forEach(w -> by.merge(w.outcome(), 1L, Long::sum));
        return by.isEmpty()
                ? "none"
                : by.entrySet().stream()
                        .map(e -> e.getValue() + " " + e.getKey())
                        .collect(Collectors.joining(", "));
    }

    /**
     * A leader-election row: the writes sent from the cut on, the longest time between the cut and the heal without
     * an accepted leader write, and the time from the heal to the answer of the first accepted write sent after it.
     */
    private static void electionRow(String fault, LeaderElection e, long cutAt, long healedAt, int violations) {
        List<LeaderElection.Write> during = e.writesSent(cutAt, Long.MAX_VALUE);
        long unknown = during.stream()
                .filter(w -> w.outcome() == LeaderElection.Outcome.UNKNOWN)
                .count();
        row(
                fault,
                "leader election (" + e.label() + ")",
                during.size(),
                during.size() - unknown,
                unknown,
                violations,
                e.longestWithoutLeaderMs(cutAt, healedAt),
                e.leaderAgainMs(healedAt));
    }

    /** Source, version and seq_no of the two protected documents. */
    private static List<String> snapshot(ElasticsearchClient es, String index) throws IOException {
        List<String> docs = new ArrayList<>();
        for (String id : List.of(LockHolderChild.REPORT, LockHolderChild.LEDGER)) {
            GetResponse<ObjectNode> got = es.get(g -> g.index(index).id(id), ObjectNode.class);
            docs.add(id + " v" + got.version() + " s" + got.seqNo() + " " + got.source());
        }
        return docs;
    }
}
