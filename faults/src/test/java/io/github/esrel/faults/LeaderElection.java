package io.github.esrel.faults;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.IndexResponse;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import io.github.esrel.shedlock.EsrelLockProvider;
import io.github.esrel.shedlock.EsrelSimpleLock;
import io.github.esrel.spring.integration.EsrelLock;
import io.github.esrel.spring.integration.EsrelLockRegistry;
import io.github.esrel.testenv.Clients;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Leader election through one of esrel's adapters, for the partition tests: one candidate per node, in this JVM, each
 * reaching only its node and only through a {@link BlackholeProxy} of its own (so a candidate can be cut off from the
 * cluster while it runs, and in a split each candidate is on its node's side). Whoever believes it leads writes the
 * guarded resource document every {@value #WRITE_EVERY_MS} ms, fenced by its token (external version,
 * {@code external_gte}, so the same leader can write again and a lower token is refused with 409); on losing the lead
 * it makes one more write with its old token, as a write in flight at that moment would.
 *
 * <ul>
 *   <li>{@link Adapter#SPRING_INTEGRATION}: Spring Integration's {@code LockRegistryLeaderInitiator} on an
 *       {@link EsrelLockRegistry} (heartbeat 500 ms, busy wait 200 ms), the token from {@link EsrelLock#token()} in
 *       {@code onGranted}; the lead ends with {@code onRevoked}.</li>
 *   <li>{@link Adapter#SHEDLOCK}: an {@link EsrelLockProvider} lock on the name {@code leader} (lockAtMostFor = the
 *       lease), tried every 200 ms, extended every third of the lease; the token from
 *       {@link EsrelSimpleLock#token()}; the lead ends when the extension is refused or the lock's lease ran out by
 *       its own clock ({@link EsrelSimpleLock#isHeld()}).</li>
 * </ul>
 *
 * <p>Every write is logged with when it was sent and answered and how (accepted with its seq_no, refused with 409,
 * failed with another answer, or unknown: no answer). What must hold ({@link #violations()}): in the order the store
 * accepted them (seq_no) the accepted tokens never decrease, so no two leaders' writes interleave; an accepted write
 * sent after another accepted write was answered carries a token at least as large; and no token was granted twice.
 */
final class LeaderElection implements AutoCloseable {

    enum Adapter {
        SHEDLOCK("ShedLock EsrelLockProvider"),
        SPRING_INTEGRATION("Spring Integration EsrelLockRegistry + LockRegistryLeaderInitiator");

        final String label;

        Adapter(String label) {
            this.label = label;
        }
    }

    enum Outcome {
        ACCEPTED,
        REFUSED,
        FAILED,
        UNKNOWN
    }

    /** One fenced write of the resource. Times are {@link System#nanoTime()}. */
    record Write(int candidate, long token, long sent, long answered, Outcome outcome, long seqNo) {}

    static final Duration LEASE = Duration.ofSeconds(3);
    static final long WRITE_EVERY_MS = 100;
    static final String RESOURCE = "resource";

    final Adapter adapter;
    final TreeLocks.Backend backend;
    private final String lockIndex;
    private final String resourceIndex;
    private final List<Candidate> candidates = new ArrayList<>();
    private final List<Write> writes = new ArrayList<>();
    private final Map<Long, Integer> grants = new HashMap<>();
    private final List<String> doubleGrants = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private final Map<Long, Long> stepDowns = new HashMap<>();
    private final long started = System.nanoTime();
    private volatile boolean closed;

    private LeaderElection(Adapter adapter, TreeLocks.Backend backend, String lockIndex, String resourceIndex) {
        this.adapter = adapter;
        this.backend = backend;
        this.lockIndex = lockIndex;
        this.resourceIndex = resourceIndex;
    }

    /** Starts one candidate per node; the indices must exist. */
    static LeaderElection start(
            Adapter adapter, TreeLocks.Backend backend, List<URI> nodes, String lockIndex, String resourceIndex)
            throws IOException {
        LeaderElection e = new LeaderElection(adapter, backend, lockIndex, resourceIndex);
        try {
            for (int i = 0; i < nodes.size(); i++) {
                e.candidates.add(
                        adapter == Adapter.SHEDLOCK
                                ? new ShedLockCandidate(e, i, nodes.get(i))
                                : new IntegrationCandidate(e, i, nodes.get(i)));
            }
            e.candidates.forEach(Candidate::start);
        } catch (IOException | RuntimeException ex) {
            e.close();
            throw ex;
        }
        return e;
    }

    String label() {
        return adapter.label + ", " + backend + ", " + candidates.size() + " candidates";
    }

    List<Candidate> candidates() {
        return candidates;
    }

    /** Waits until a candidate leads and one of its writes under its token was accepted after {@code after}. */
    Candidate awaitLeader(long after, Duration patience) throws InterruptedException {
        Candidate[] found = new Candidate[1];
        Faults.await("a " + adapter + " leader with an accepted write", (int) patience.toSeconds(), () -> {
            for (Candidate c : candidates) {
                long t = c.leading;
                if (t > 0
                        && firstWrite(w -> w.candidate == c.id && w.token == t && accepted(w) && w.sent >= after)
                                .isPresent()) {
                    found[0] = c;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** Makes {@code node}'s candidate the leader: the others stand aside until it has written as leader. */
    Candidate moveLeaderTo(int node, Duration patience) throws InterruptedException {
        Candidate target = candidates.get(node);
        if (target.leading > 0) {
            return awaitLeader(System.nanoTime(), patience);
        }
        for (Candidate c : candidates) {
            if (c != target) {
                c.pause();
            }
        }
        try {
            long from = System.nanoTime();
            Faults.await(
                    adapter + " candidate " + node + " to lead",
                    (int) patience.toSeconds(),
                    () -> target.leading > 0
                            && firstWrite(w -> w.candidate == node && accepted(w) && w.sent >= from)
                                    .isPresent());
        } catch (AssertionError e) {
            throw withHolders(e, target);
        } finally {
            for (Candidate c : candidates) {
                if (c != target) {
                    c.resume();
                }
            }
        }
        return target;
    }

    /**
     * {@code e} with the holders of the leader lock by the cluster's account (owner, token, expiry), asked through
     * {@code via} while the others still stand aside: whom the wait was behind (an expiry a lease from now: renewed).
     */
    private static AssertionError withHolders(AssertionError e, Candidate via) {
        String holders;
        try {
            holders = via.treeLocks.list(TreePath.of("/leaders")).toString();
        } catch (RuntimeException ex) {
            holders = "unknown (" + ex.getMessage() + ")";
        }
        return new AssertionError(e.getMessage() + "; holders of /leaders then: " + holders, e);
    }

    private static boolean accepted(Write w) {
        return w.outcome == Outcome.ACCEPTED;
    }

    /** The first write (in the order logged) that matches. */
    Optional<Write> firstWrite(Predicate<Write> p) {
        synchronized (writes) {
            return writes.stream().filter(p).findFirst();
        }
    }

    /** The writes sent between {@code from} and {@code to} (nanoTime). */
    List<Write> writesSent(long from, long to) {
        synchronized (writes) {
            return writes.stream().filter(w -> w.sent >= from && w.sent <= to).toList();
        }
    }

    List<Write> writes() {
        synchronized (writes) {
            return List.copyOf(writes);
        }
    }

    /** Time from {@code from} to the answer of the first accepted write sent after it, ms; -1 if none yet. */
    long leaderAgainMs(long from) {
        return firstWrite(w -> accepted(w) && w.sent >= from)
                .map(w -> (w.answered - from) / 1_000_000)
                .orElse(-1L);
    }

    /** The longest time between {@code from} and {@code to} without an accepted write being answered, ms. */
    long longestWithoutLeaderMs(long from, long to) {
        long previous = from;
        long gap = 0;
        for (Write w : writes().stream()
                .filter(w -> accepted(w) && w.answered > from && w.answered <= to)
                .sorted(Comparator.comparingLong(Write::answered))
                .toList()) {
            gap = Math.max(gap, w.answered - previous);
            previous = w.answered;
        }
        return Math.max(gap, to - previous) / 1_000_000;
    }

    /** Everything that broke the fence over all writes so far. */
    List<String> violations() {
        List<String> found = new ArrayList<>();
        List<Write> accepted =
                writes().stream().filter(LeaderElection::accepted).toList();
        List<Write> bySeqNo =
                accepted.stream().sorted(Comparator.comparingLong(Write::seqNo)).toList();
        for (int i = 1; i < bySeqNo.size(); i++) {
            Write a = bySeqNo.get(i - 1);
            Write b = bySeqNo.get(i);
            if (b.token < a.token) {
                found.add("accepted token " + b.token + " (candidate " + b.candidate + ", seq_no " + b.seqNo
                        + ") after token " + a.token + " (candidate " + a.candidate + ", seq_no " + a.seqNo + ")");
            }
        }
        for (Write b : accepted) {
            for (Write a : accepted) {
                if (a.answered < b.sent && a.token > b.token) {
                    found.add("accepted token " + b.token + " (candidate " + b.candidate + ") sent after token "
                            + a.token + " (candidate " + a.candidate + ") was accepted");
                    break;
                }
            }
        }
        synchronized (writes) {
            found.addAll(doubleGrants);
        }
        return found;
    }

    /** Leads granted so far (distinct tokens). */
    int grants() {
        synchronized (writes) {
            return grants.size();
        }
    }

    /** The leads and step-downs so far, with ms since the election started. */
    List<String> events() {
        synchronized (writes) {
            return List.copyOf(events);
        }
    }

    /** When the lead of {@code token} ended by its holder's account (nanoTime), or -1 while it lasts. */
    long steppedDownAt(long token) {
        synchronized (writes) {
            return stepDowns.getOrDefault(token, -1L);
        }
    }

    private void event(Candidate c, String what) {
        synchronized (writes) {
            events.add("+" + Faults.millisSince(started) + " ms candidate " + c.id + " " + what);
        }
    }

    private void granted(Candidate c, long token) {
        event(c, "leads with token " + token);
        synchronized (writes) {
            Integer other = grants.putIfAbsent(token, c.id);
            if (other != null) {
                doubleGrants.add("token " + token + " granted to candidate " + other + " and " + c.id);
            }
        }
    }

    /** Writes the resource as {@code c} with {@code token} (also a stale token: a write delayed in flight). */
    void write(Candidate c, long token) {
        long sent = System.nanoTime();
        Outcome outcome;
        long seqNo = -1;
        try {
            IndexResponse r = c.client.index(i -> i.index(resourceIndex)
                    .id(RESOURCE)
                    .version(token)
                    .versionType(VersionType.ExternalGte)
                    .timeout(t -> t.time("2s"))
                    .document(Map.of("adapter", adapter.name(), "candidate", c.id, "token", token)));
            outcome = Outcome.ACCEPTED;
            seqNo = r.seqNo();
        } catch (ElasticsearchException e) {
            outcome = e.status() == 409 ? Outcome.REFUSED : Outcome.FAILED;
        } catch (IOException | RuntimeException e) {
            outcome = Outcome.UNKNOWN;
        }
        synchronized (writes) {
            writes.add(new Write(c.id, token, sent, System.nanoTime(), outcome, seqNo));
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Candidate c : candidates) {
            c.close();
        }
    }

    /** One candidate: its proxy, client and tree locks, and the thread that writes while it leads. */
    abstract static class Candidate implements AutoCloseable {
        final LeaderElection election;
        final int id;
        final BlackholeProxy proxy;
        final ElasticsearchClient client;
        final TreeLocks treeLocks;
        /** The token while this candidate believes it leads, else -1. */
        volatile long leading = -1;

        private final Thread writer;

        Candidate(LeaderElection election, int id, URI node) throws IOException {
            this.election = election;
            this.id = id;
            this.proxy = new BlackholeProxy(node);
            this.client = Clients.connect(List.of(proxy.uri()));
            this.treeLocks = TreeLocks.of(b -> b.client(client)
                    .index(election.lockIndex)
                    .backend(election.backend)
                    .owner(election.adapter + "-" + id));
            this.writer = new Thread(this::writeWhileLeading, election.adapter + "-writer-" + id);
            writer.setDaemon(true);
        }

        void start() {
            writer.start();
        }

        private void writeWhileLeading() {
            while (!election.closed) {
                long token = leading;
                if (token > 0) {
                    election.write(this, token);
                }
                try {
                    Thread.sleep(WRITE_EVERY_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /** Leads from now with {@code token}. */
        void lead(long token) {
            election.granted(this, token);
            leading = token;
        }

        /** No longer leads: one more write with the old token, as a write in flight when the lead was lost. */
        void stepDown(String why) {
            long token = leading;
            leading = -1;
            synchronized (election.writes) {
                election.stepDowns.putIfAbsent(token, System.nanoTime());
            }
            election.event(this, "steps down from token " + token + ": " + why);
            if (token > 0 && !election.closed) {
                election.write(this, token);
            }
        }

        /** Stands aside (gives up the lead if it has it) until {@link #resume()}. */
        abstract void pause();

        abstract void resume();

        void cutOff(boolean cut) {
            proxy.blackhole(cut);
        }

        @Override
        public void close() {
            writer.interrupt();
            try {
                writer.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            treeLocks.close();
            try {
                client._transport().close();
                proxy.close();
            } catch (IOException e) {
                // closing anyway
            }
        }

        @Override
        public String toString() {
            return election.adapter + " candidate " + id + (leading > 0 ? " (leading, token " + leading + ")" : "");
        }
    }

    /** A candidate through Spring Integration's leader initiator on the esrel registry. */
    static final class IntegrationCandidate extends Candidate {
        private final EsrelLock lock;
        private final LockRegistryLeaderInitiator initiator;

        IntegrationCandidate(LeaderElection election, int id, URI node) throws IOException {
            super(election, id, node);
            EsrelLockRegistry registry =
                    EsrelLockRegistry.of(b -> b.treeLocks(treeLocks).ttl(LEASE).prefix("/leaders"));
            this.lock = registry.obtain("leader");
            this.initiator =
                    new LockRegistryLeaderInitiator(registry, new org.springframework.integration.leader.Candidate() {
                        @Override
                        public String getRole() {
                            return "leader";
                        }

                        @Override
                        public String getId() {
                            return "candidate-" + id;
                        }

                        @Override
                        public void onGranted(Context ctx) {
                            lead(lock.token()); // on the initiator's thread, which holds the lock
                        }

                        @Override
                        public void onRevoked(Context ctx) {
                            stepDown("revoked");
                        }
                    });
            initiator.setHeartBeatMillis(500);
            initiator.setBusyWaitMillis(200);
        }

        @Override
        void start() {
            super.start();
            initiator.start();
        }

        @Override
        void pause() {
            initiator.stop();
        }

        @Override
        void resume() {
            initiator.start();
        }

        @Override
        public void close() {
            initiator.destroy();
            super.close();
        }
    }

    /** A candidate through ShedLock's lock provider: lock, extend while leading, unlock on standing aside. */
    static final class ShedLockCandidate extends Candidate {
        private final EsrelLockProvider provider;
        private final Thread elector;
        private volatile boolean paused;

        ShedLockCandidate(LeaderElection election, int id, URI node) throws IOException {
            super(election, id, node);
            this.provider = EsrelLockProvider.builder()
                    .treeLocks(treeLocks)
                    .prefix("/leaders")
                    .build();
            this.elector = new Thread(this::elect, election.adapter + "-elector-" + id);
            elector.setDaemon(true);
        }

        @Override
        void start() {
            super.start();
            elector.start();
        }

        private void elect() {
            try {
                while (!election.closed) {
                    Optional<SimpleLock> got = Optional.empty();
                    if (!paused) {
                        try {
                            got = provider.lock(new LockConfiguration(Instant.now(), "leader", LEASE, Duration.ZERO));
                        } catch (RuntimeException e) {
                            // No answer, or the cluster refused: try again.
                        }
                    }
                    if (got.isEmpty()) {
                        Thread.sleep(200);
                        continue;
                    }
                    lead(got.get());
                }
            } catch (InterruptedException e) {
                // closed
            }
        }

        private void lead(SimpleLock granted) throws InterruptedException {
            EsrelSimpleLock lock = (EsrelSimpleLock) granted;
            lead(lock.token());
            long extended = System.nanoTime();
            String why = "lease ran out";
            try {
                while (!election.closed && !paused && lock.isHeld()) {
                    Thread.sleep(50);
                    if (Faults.millisSince(extended) >= LEASE.toMillis() / 3) {
                        try {
                            Optional<SimpleLock> next = lock.extend(LEASE, Duration.ZERO);
                            if (next.isEmpty()) {
                                why = "extension refused";
                                break; // the lease was lost
                            }
                            lock = (EsrelSimpleLock) next.get();
                            extended = System.nanoTime();
                            why = "lease ran out";
                        } catch (RuntimeException e) {
                            // Not answered: the lease runs on by the lock's own clock, which ends the lead.
                            why = "lease ran out after an unanswered extension (" + e.getMessage() + ")";
                        }
                    }
                }
            } finally {
                if (election.closed) {
                    why = "closed";
                } else if (paused) {
                    why = "paused";
                }
                stepDown(why);
                try {
                    lock.unlock();
                } catch (RuntimeException e) {
                    // Lost, or used by a failed extension: the lease ends by itself.
                }
            }
        }

        @Override
        void pause() {
            paused = true;
        }

        @Override
        void resume() {
            paused = false;
        }

        @Override
        public void close() {
            elector.interrupt();
            try {
                elector.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            super.close();
        }
    }
}
