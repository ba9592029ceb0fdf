package io.github.esrel.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import io.github.esrel.testenv.Clients;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} on an {@link EsrelLockRegistry}, in this JVM, through the
 * sequences that can leave the tree lock held for good after the leader lost or gave up the lead, so that no other
 * candidate ever leads (PartitionFaultIT, 2026-12-05: no leader for 180 s after the leader's lease ended while its
 * renewal was not answered). The leader reaches the node through an {@link AnswerHoldingProxy}, whose held answers are
 * a cluster that stalls; after each sequence another registry must take the lock within two leases and a margin, and
 * the leader, stopped and started again, must lead again.
 */
@EsrelTest
class LeaderInitiatorIT {

    /** The leader's lease, as in the fault suite and {@link LeaderElectionIT}. */
    static final Duration TTL = Duration.ofSeconds(3);

    /** Slack for a loaded machine. */
    static final Duration MARGIN = Duration.ofSeconds(3);

    /**
     * The longest another registry may wait for the lock: a lock granted on the server to an acquisition that the
     * stop interrupted ends with its lease, as may a lease whose release was not answered; then the margin.
     */
    static final Duration FREE = TTL.multipliedBy(2).plus(MARGIN);

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();
    private String index;
    private AnswerHoldingProxy proxy;
    /** The tree locks of the other registry, on the node directly. */
    private TreeLocks direct;

    @org.junit.jupiter.api.BeforeEach
    void open(TestInfo info) throws IOException {
        index = ("si-initiator-" + info.getTestMethod().orElseThrow().getName() + "-"
                        + info.getDisplayName().replaceAll("\\W", ""))
                .toLowerCase(Locale.ROOT);
        if (!cluster.client().indices().exists(e -> e.index(index)).value()) {
            cluster.client().indices().create(c -> c.index(index));
        }
        proxy = new AnswerHoldingProxy(cluster.httpUris().get(0));
        opened.push(proxy);
    }

    @AfterEach
    void close() throws Exception {
        proxy.hold(false); // so that the releases on close are answered
        while (!opened.isEmpty()) {
            opened.pop().close();
        }
    }

    /**
     * The failing run's sequence: the leader's renewal is not answered before its lease ends by its clock (it is
     * revoked at its heartbeat), and is answered later, renewed on the server with time left; the leader is stopped
     * meanwhile. Before, the dropped lease lived on, renewed in the background, and no one else got the lock (plugin
     * backend; lock documents too, when the answer comes soon enough); and the leader, started again, never led (its
     * hold stayed with the stopped selector's thread).
     */
    @ParameterizedTest
    @EnumSource(names = {"PLUGIN", "DOCUMENTS"})
    void aRenewalAnsweredAfterTheLeaseEndedDoesNotKeepTheLock(TreeLocks.Backend backend) throws Exception {
        Leader leader = leaderThroughProxy(backend);
        EsrelLock other = other(backend);
        leader.start();
        leader.await("granted", FREE);
        proxy.hold(true);
        leader.await("revoked", TTL.plus(MARGIN));
        leader.initiator.stop(); // as LeaderElection.moveLeaderTo stands it aside
        proxy.hold(false);
        takenByAnotherThenLedAgain(other, leader, "after the leader's lease ended");
    }

    /**
     * The leader stopped while its heartbeat waits for a renewal: the interrupted re-entry must not keep a hold, or
     * the initiator's one unlock on stop leaves the tree lock held and renewed.
     */
    @ParameterizedTest
    @EnumSource(names = {"PLUGIN", "DOCUMENTS"})
    void aLeaderStoppedDuringItsHeartbeatReleasesTheLock(TreeLocks.Backend backend) throws Exception {
        Leader leader = leaderThroughProxy(backend);
        EsrelLock other = other(backend);
        leader.start();
        leader.await("granted", FREE);
        proxy.hold(true);
        // Within a heartbeat its re-entry waits for the renewal's answer, until its lease ends (2.4 s from now at
        // the soonest): stopped then.
        Thread.sleep(LeaderCandidateMain.HEARTBEAT_MILLIS * 2);
        leader.initiator.stop();
        proxy.hold(false);
        leader.await("revoked", MARGIN);
        takenByAnotherThenLedAgain(other, leader, "after the leader was stopped");
    }

    /**
     * The leader revoked (its lease ended while the cluster stalled), granted again, then stopped: the initiator does
     * not unlock after a revoke, so a hold kept then would count under the next grant, whose one unlock on stop would
     * not release the tree lock; and, stopped while revoked, the hold would stay with a thread gone.
     */
    @ParameterizedTest
    @EnumSource(names = {"PLUGIN", "DOCUMENTS"})
    void aLeaderRevokedAndGrantedAgainReleasesTheLockWhenStopped(TreeLocks.Backend backend) throws Exception {
        Leader leader = leaderThroughProxy(backend);
        EsrelLock other = other(backend);
        leader.start();
        leader.await("granted", FREE);
        proxy.hold(true);
        leader.await("revoked", TTL.plus(MARGIN));
        // Held one lease more: the renewal that was not answered has ended on the server too when it is answered.
        Thread.sleep(TTL.toMillis());
        proxy.hold(false);
        leader.await("granted", FREE);
        leader.initiator.stop();
        leader.await("revoked", MARGIN);
        takenByAnotherThenLedAgain(other, leader, "after the leader, granted again, was stopped");
    }

    /**
     * Takes and gives back {@code other} within {@link #FREE} (else fails with the holders by the cluster's account),
     * then starts the stopped leader again, which must lead again.
     */
    private void takenByAnotherThenLedAgain(EsrelLock other, Leader leader, String when) throws InterruptedException {
        boolean taken = other.tryLock(FREE.toMillis(), TimeUnit.MILLISECONDS);
        String holders = taken ? "" : direct.list(TreePath.of("/leaders")).toString();
        assertThat(taken)
                .as("the lock taken by another registry " + when + " (holders then: " + holders + "; the leader's"
                        + " events: " + leader.history + ")")
                .isTrue();
        other.unlock();
        leader.start();
        leader.await("granted", FREE);
    }

    /** The lock of another registry, another owner, on the node directly. */
    private EsrelLock other(TreeLocks.Backend backend) {
        EsrelLockRegistry registry = registry(backend, "node-2", cluster.client());
        direct = registry.treeLocks();
        return registry.obtain("leader");
    }

    private Leader leaderThroughProxy(TreeLocks.Backend backend) {
        ElasticsearchClient client = Clients.connect(List.of(proxy.uri()));
        opened.push(() -> client._transport().close());
        Leader leader = new Leader(registry(backend, "node-1", client));
        opened.push(leader.initiator::destroy);
        return leader;
    }

    private EsrelLockRegistry registry(TreeLocks.Backend backend, String owner, ElasticsearchClient client) {
        TreeLocks locks =
                TreeLocks.of(t -> t.client(client).index(index).owner(owner).backend(backend));
        opened.push(locks);
        return EsrelLockRegistry.of(b -> b.treeLocks(locks).ttl(TTL).prefix("/leaders"));
    }

    /** A candidate: the initiator (heartbeat and busy wait of the fault suite's) and its grants and revokes in turn. */
    static final class Leader {
        final LockRegistryLeaderInitiator initiator;
        private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        private final List<String> history = new CopyOnWriteArrayList<>();
        private final long created = System.nanoTime();

        Leader(EsrelLockRegistry registry) {
            this.initiator = new LockRegistryLeaderInitiator(registry, new Candidate() {
                @Override
                public String getRole() {
                    return "leader";
                }

                @Override
                public String getId() {
                    return "node-1";
                }

                @Override
                public void onGranted(Context ctx) {
                    event("granted");
                }

                @Override
                public void onRevoked(Context ctx) {
                    event("revoked");
                }
            });
            initiator.setHeartBeatMillis(LeaderCandidateMain.HEARTBEAT_MILLIS);
            initiator.setBusyWaitMillis(LeaderCandidateMain.BUSY_WAIT_MILLIS);
        }

        void start() {
            initiator.start();
        }

        private void event(String what) {
            history.add("+" + (System.nanoTime() - created) / 1_000_000 + " ms " + what);
            events.add(what);
        }

        void await(String event, Duration patience) throws InterruptedException {
            assertThat(events.poll(patience.toMillis(), TimeUnit.MILLISECONDS))
                    .as("the leader's next event within " + patience.toMillis() + " ms (so far: " + history + ")")
                    .isEqualTo(event);
        }
    }
}
