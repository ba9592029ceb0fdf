package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccConflictException;
import io.github.esrel.occ.OccException;
import io.github.esrel.occ.Outcome;
import io.github.esrel.occ.Versioned;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * 16 writers increment one counter with {@link Occ} while the node holding the counter's primary is
 * killed ({@code kill -9}): every increment acknowledged to a caller is in the final count.
 *
 * <h2>What Elasticsearch guarantees, and the settings tested</h2>
 * The index has one shard and {@code number_of_replicas: 1} on a 3-node cluster, with the defaults
 * {@code index.write.wait_for_active_shards: 1} and {@code index.translog.durability: request}. A write
 * is acknowledged only after the primary has applied it and every copy in the <em>in-sync set</em> has
 * too (a copy that fails the write is first removed from that set by the master). When the primary's
 * node dies, the master promotes an in-sync replica, which therefore holds every acknowledged write, and
 * raises the primary term. So with at least one replica, an acknowledged write survives the loss of any
 * one node. {@code wait_for_active_shards} is not what makes this true: it is only checked before a
 * write starts (how many copies must be active for it to be attempted), and with the default of 1 a
 * write is acknowledged with the primary alone when no replica is active, as here after the failover
 * (the lost replica is rebuilt only when the node returns or after {@code
 * index.unassigned.node_left.delayed_timeout}, 1 min). Such a write is then on one copy; losing that node
 * too makes the shard unavailable (red), since Elasticsearch does not promote a stale copy by itself, but
 * does not lose it silently. A conditional write ({@code if_seq_no}, {@code if_primary_term}) that was
 * not acknowledged may or may not have been applied; so may an increment whose caller got an error. esrel never
 * lets the client send a write whose answer was lost to another node, but Elasticsearch itself may run a write
 * again on the new primary when the old one died after replicating it (elasticsearch#9967): the copy answers a
 * conflict, which an {@code Occ} without the write log retries as another writer's. The test therefore
 * requires, per writer, {@code applied >= acknowledged}, and reports the surplus.
 *
 * <p>The counter records each writer's increments separately ({@code by}) besides the {@code total}, so
 * a lost increment is pinned to its writer and the document is checked for internal consistency.
 */
@EsrelTest
class OccFailoverFaultIT {

    private static final String INDEX = "occ-counter";
    private static final String ID = "counter";
    private static final int WRITERS = 16;
    private static final int ACKED_PER_PHASE = 300;
    private static final Duration PATIENCE = Duration.ofMinutes(5);

    @Cluster
    static final EsCluster cluster = FaultCluster.build();

    /** The counter document: the total and each writer's share. */
    public record Counter(long total, Map<String, Long> by) {
        Counter plus(String writer) {
            Map<String, Long> next = new HashMap<>(by);
            next.merge(writer, 1L, Long::sum);
            return new Counter(total + 1, next);
        }
    }

    @Test
    void shouldKeepEveryAcknowledgedIncrementAcrossAPrimaryFailover() throws Exception {
        ElasticsearchClient es = cluster.client();
        es.indices()
                .create(c -> c.index(INDEX)
                        .settings(s -> s.numberOfShards("1")
                                .numberOfReplicas("1")
                                .otherSettings(
                                        "index.write.wait_for_active_shards",
                                        co.elastic.clients.json.JsonData.of("1"))));
        cluster.waitForHealth("green", PATIENCE);
        es.index(i -> i.index(INDEX).id(ID).document(new Counter(0, Map.of())).refresh(Refresh.True));
        Occ occ = Occ.of(b -> b.client(es));
        long termBefore = occ.get(INDEX, ID, Counter.class).orElseThrow().primaryTerm();

        AtomicLongArray acked = new AtomicLongArray(WRITERS);
        AtomicLongArray gaveUp = new AtomicLongArray(WRITERS);
        AtomicLongArray failed = new AtomicLongArray(WRITERS);
        AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
        AtomicLong firstAckAfterKill = new AtomicLong(Long.MAX_VALUE);
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        List<Future<?>> writers = new ArrayList<>();
        int victim;
        long ackedBeforeKill;
        try {
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                String name = "w" + w;
                writers.add(pool.submit(() -> {
                    while (!stop.get()) {
                        long started = System.nanoTime();
                        try {
                            Outcome<Counter> o = occ.update(INDEX, ID, Counter.class, c -> c.plus(name));
                            if (o.status() == Outcome.Status.UPDATED) {
                                acked.incrementAndGet(writer);
                                if (started > killedAt.get()) {
                                    firstAckAfterKill.accumulateAndGet(System.nanoTime(), Math::min);
                                }
                            }
                        } catch (OccConflictException e) {
                            gaveUp.incrementAndGet(writer);
                        } catch (OccException e) {
                            failed.incrementAndGet(writer);
                            Thread.sleep(50);
                        }
                    }
                    return null;
                }));
            }
            awaitAcked(acked, ACKED_PER_PHASE);
            victim = cluster.primaryNode(INDEX, 0);
            ackedBeforeKill = sum(acked);
            killedAt.set(System.nanoTime());
            cluster.killNode(victim);
            long killStart = killedAt.get();
            awaitAcked(acked, ackedBeforeKill + ACKED_PER_PHASE);
            while (System.nanoTime() - killStart < TimeUnit.SECONDS.toNanos(5)) {
                Thread.sleep(100);
            }
        } finally {
            stop.set(true);
            pool.shutdown();
            assertThat(pool.awaitTermination(2, TimeUnit.MINUTES))
                    .as("writers stop")
                    .isTrue();
        }
        for (Future<?> f : writers) {
            f.get();
        }
        int newPrimary = cluster.primaryNode(INDEX, 0);
        cluster.startNode(victim);
        cluster.waitForHealth("green", PATIENCE);

        Versioned<Counter> end = occ.get(INDEX, ID, Counter.class).orElseThrow();
        long lost = 0;
        for (int w = 0; w < WRITERS; w++) {
            lost += Math.max(0, acked.get(w) - end.value().by().getOrDefault("w" + w, 0L));
        }
        long sumBy =
                end.value().by().values().stream().mapToLong(Long::longValue).sum();
        long recoveryMs =
                firstAckAfterKill.get() == Long.MAX_VALUE ? -1 : (firstAckAfterKill.get() - killedAt.get()) / 1_000_000;
        Figures.row(
                "primary's node killed (kill -9)",
                "OCC counter, 16 writers",
                sum(acked),
                lost + (sumBy == end.value().total() ? 0 : 1),
                recoveryMs,
                "acknowledged " + sum(acked) + " (" + ackedBeforeKill + " before the kill), in the count "
                        + end.value().total() + ", applied without acknowledgement "
                        + (end.value().total() - sum(acked))
                        + ", gave up " + sum(gaveUp) + ", errors " + sum(failed) + "; primary node-" + victim
                        + " -> node-" + newPrimary
                        + ", term " + termBefore + " -> " + end.primaryTerm()
                        + "; ms = kill to the first acknowledged increment sent after it");

        assertThat(newPrimary).as("the primary moved").isNotEqualTo(victim);
        assertThat(end.primaryTerm()).as("a replica was promoted").isGreaterThan(termBefore);
        for (int w = 0; w < WRITERS; w++) {
            assertThat(end.value().by().getOrDefault("w" + w, 0L))
                    .as("increments of writer w%d in the count", w)
                    .isGreaterThanOrEqualTo(acked.get(w));
        }
        assertThat(sumBy)
                .as("the total is the sum of the writers' shares")
                .isEqualTo(end.value().total());
        assertThat(sum(acked) - ackedBeforeKill)
                .as("acknowledged after the kill")
                .isGreaterThanOrEqualTo(ACKED_PER_PHASE);
    }

    private static void awaitAcked(AtomicLongArray acked, long target) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (sum(acked) < target) {
            assertThat(System.nanoTime())
                    .as("%d increments acknowledged in time (have %d)", target, sum(acked))
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static long sum(AtomicLongArray a) {
        long s = 0;
        for (int i = 0; i < a.length(); i++) {
            s += a.get(i);
        }
        return s;
    }
}
