package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import io.github.esrel.testenv.Clients;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.LossyProxy;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Lost answers, for every provider (issue 42): a proxy in front of the node closes the connection when the node's
 * answer to a lock request starts, so the node did the work and the client never hears of it. With a client of two
 * hosts (the proxy and the node) the low-level client sends the same request again to the node; with the proxy alone
 * the I/O failure reaches the lock client, which sends it again itself. Either way the caller must be told the truth:
 * a grant it got is handed out (and none is left that nobody knows of), a release that was applied counts as done
 * (never a {@link LeaseLostException} for a lease that was held), and what cannot be known is reported as a failure,
 * never as a loss.
 */
abstract class AbstractLostAnswersContractIT {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private final List<TreeLocks> providers = new ArrayList<>();
    private final List<ElasticsearchClient> clients = new ArrayList<>();
    private LossyProxy proxy;

    /** The cluster the provider runs against. */
    protected abstract EsCluster cluster();

    /** The implementation under test. */
    protected abstract TreeLocks.Backend backend();

    /**
     * The request lines of the writes of a lock operation, to lose their answer: {@code acquire}, {@code renew} or
     * {@code release}; a provider whose writes all look alike gives the same for each.
     */
    protected abstract Predicate<String> writesOf(String operation);

    @BeforeEach
    void startProxy() throws IOException {
        proxy = LossyProxy.to(cluster().httpUri());
    }

    @AfterEach
    void stop() throws IOException {
        providers.forEach(TreeLocks::close);
        providers.clear();
        for (ElasticsearchClient c : clients) {
            c._transport().close();
        }
        clients.clear();
        proxy.close();
    }

    /** A fresh namespace, created through the cluster's own client. */
    private String namespace() {
        String name = "lost-" + backend().name().toLowerCase(Locale.ROOT) + "-" + NAMESPACES.incrementAndGet();
        try {
            cluster()
                    .client()
                    .indices()
                    .create(c ->
                            c.index(name).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        } catch (ElasticsearchException | IOException e) {
            throw new IllegalStateException(e);
        }
        return name;
    }

    /** A client of the proxy and, with {@code twoHosts}, of the node itself after it (the client of this line). */
    private ElasticsearchClient client(boolean twoHosts) {
        List<URI> hosts = twoHosts ? List.of(proxy.uri(), cluster().httpUri()) : List.of(proxy.uri());
        ElasticsearchClient c = Clients.connect(hosts, cluster().requestHeaders());
        clients.add(c);
        return c;
    }

    private TreeLocks locks(ElasticsearchClient client, String namespace, String owner) {
        TreeLocks locks = TreeLocks.builder()
                .client(client)
                .index(namespace)
                .backend(backend())
                .owner(owner)
                .ttl(Duration.ofSeconds(30))
                .build();
        providers.add(locks);
        return locks;
    }

    private TreeLocks observer(String namespace) {
        return locks(cluster().client(), namespace, "observer");
    }

    // ---- one lost answer -------------------------------------------------------------------------------------

    @Test
    void shouldHandOutTheGrantOfAnAcquireWhoseAnswerWasLostOnEitherClient() {
        for (boolean twoHosts : new boolean[] {true, false}) {
            String ns = namespace();
            TreeLocks locks = locks(client(twoHosts), ns, "w");
            long dropped = proxy.answersDropped();
            // With two hosts the client takes turns: the answer is lost once a request goes through the proxy.
            for (int i = 0; i < 20 && proxy.answersDropped() == dropped; i++) {
                shiftTurn(locks, i);
                proxy.dropAnswerToNext(writesOf("acquire"));
                TreeLock lock = locks.acquire("/d", LockMode.EXCLUSIVE).orThrow();
                assertThat(observer(ns).list())
                        .as("the one grant, the caller's")
                        .singleElement()
                        .satisfies(l -> assertThat(l.holders())
                                .singleElement()
                                .satisfies(h -> assertThat(h.token()).isEqualTo(lock.token())));
                assertThat(lock.release()).as("held until released").isTrue();
                assertThat(observer(ns).list()).isEmpty();
            }
            proxy.heal();
            assertThat(proxy.answersDropped()).as("two hosts: %s", twoHosts).isEqualTo(dropped + 1);
        }
    }

    @Test
    void shouldCountAReleaseWhoseAnswerWasLostAsDoneOnEitherClient() {
        for (boolean twoHosts : new boolean[] {true, false}) {
            String ns = namespace();
            TreeLocks locks = locks(client(twoHosts), ns, "w");
            long dropped = proxy.answersDropped();
            for (int i = 0; i < 20 && proxy.answersDropped() == dropped; i++) {
                shiftTurn(locks, i);
                TreeLock lock = locks.acquire("/r/x", LockMode.EXCLUSIVE).orThrow();
                proxy.dropAnswerToNext(writesOf("release"));
                lock.close(); // no LeaseLostException: the lease was held until the release
                assertThat(lock.isHeld()).isFalse();
                assertThat(observer(ns).list()).isEmpty();
            }
            proxy.heal();
            assertThat(proxy.answersDropped()).as("two hosts: %s", twoHosts).isEqualTo(dropped + 1);
        }
    }

    @Test
    void shouldRenewALeaseWhoseRenewalAnswerWasLostOnEitherClient() {
        for (boolean twoHosts : new boolean[] {true, false}) {
            String ns = namespace();
            TreeLocks locks = locks(client(twoHosts), ns, "w");
            long dropped = proxy.answersDropped();
            for (int i = 0; i < 20 && proxy.answersDropped() == dropped; i++) {
                shiftTurn(locks, i);
                TreeLock lock = locks.acquire(LockRequest.of(b -> b.path("/n").autoRenew(false)))
                        .orThrow();
                proxy.dropAnswerToNext(writesOf("renew"));
                assertThat(lock.renew(Duration.ofSeconds(40))).isTrue();
                assertThat(lock.isHeld()).isTrue();
                assertThat(lock.release()).isTrue();
            }
            proxy.heal();
            assertThat(proxy.answersDropped()).as("two hosts: %s", twoHosts).isEqualTo(dropped + 1);
            assertThat(observer(ns).list()).isEmpty();
        }
    }

    /**
     * A client of two hosts takes them in turn: a listing every other round moves the request to lose onto the other
     * host.
     */
    private static void shiftTurn(TreeLocks locks, int round) {
        if (round % 2 == 1) {
            locks.list();
        }
    }

    /**
     * No answer to any acquire reaches the client (the proxy alone): the provider either learns its grant in the
     * end (the fallback reads its lock documents back) or gives it back by its identity and says so; in no case is a
     * grant left that nobody holds.
     */
    @Test
    void shouldLeaveNothingHeldWhenNoAnswerToAnAcquireArrives() {
        String ns = namespace();
        TreeLocks locks = locks(client(false), ns, "w");
        proxy.dropAnswers(1.0, writesOf("acquire"));
        AcquireResult<TreeLock> r;
        try {
            r = locks.acquire("/u", LockMode.EXCLUSIVE);
        } catch (TreeLockException e) {
            assertThat(e.status()).isEqualTo(TreeLockException.UNAVAILABLE);
            assertThat(e.getMessage()).contains("released by its grant");
            r = null;
        }
        proxy.heal();
        if (r == null) {
            assertThat(observer(ns).list()).as("nothing left held").isEmpty();
        } else {
            TreeLock lock = r.orThrow();
            assertThat(observer(ns).list()).hasSize(1);
            assertThat(lock.release()).isTrue();
            assertThat(observer(ns).list()).isEmpty();
        }
        assertThat(proxy.answersDropped()).isPositive();
    }

    // ---- many lost answers -------------------------------------------------------------------------------------

    /**
     * Threads take {@code /a} exclusively for a few seconds through a client of two hosts while a tenth of the
     * answers to lock writes are lost: never two holders, tokens strictly increasing, no lease reported lost, and
     * nothing held afterwards.
     */
    @Test
    void shouldTellTheTruthWhileTheTransportSendsLostRequestsAgain() throws Exception {
        Run run = sections(true, 0.10, Duration.ofSeconds(8));
        run.assertTruthful();
    }

    /** As with two hosts, through the proxy alone: every lost answer reaches the lock client, which sends again. */
    @Test
    void shouldTellTheTruthWhenEveryLostAnswerReachesTheLockClient() throws Exception {
        Run run = sections(false, 0.05, Duration.ofSeconds(8));
        run.assertTruthful();
    }

    /** What a run of {@link #sections} saw. */
    private final class Run {
        final String namespace;
        final AbstractTreeLocksContractIT.InvariantChecker checker = new AbstractTreeLocksContractIT.InvariantChecker();
        final AtomicInteger sections = new AtomicInteger();
        final AtomicInteger busy = new AtomicInteger();
        final AtomicInteger acquireFailures = new AtomicInteger();
        final AtomicInteger lost = new AtomicInteger();
        final AtomicInteger unknownReleases = new AtomicInteger();
        final List<String> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<Long> unknownTokens = java.util.Collections.synchronizedList(new ArrayList<>());
        /** The failures reported, as their messages tell them. */
        final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());

        Run(String namespace) {
            this.namespace = namespace;
        }

        void assertTruthful() {
            assertThat(unexpected).isEmpty();
            assertThat(checker.violations())
                    .as("overlapping holders or tokens not increasing")
                    .isEmpty();
            assertThat(lost.get()).as("leases reported lost, none was").isZero();
            assertThat(sections.get()).isPositive();
            assertThat(proxy.answersDropped()).as("answers lost").isPositive();
            // Nothing held but what a release whose outcome stayed unknown may have left (it ends with its lease).
            assertThat(observer(namespace).list())
                    .flatExtracting(LockInfo::holders)
                    .extracting(LockInfo.Holder::token)
                    .isSubsetOf(unknownTokens);
        }
    }

    /**
     * Threads take {@code /a} exclusively, in turn, for {@code length}, while a share of the write answers is lost.
     * With two hosts each thread has a client of its own, and a new one every {@value #SECTIONS_PER_CLIENT}
     * sections: a low-level client that lost an answer through the proxy leaves it aside for a minute, so that one
     * client would lose one answer a minute.
     */
    private Run sections(boolean twoHosts, double share, Duration length) throws Exception {
        Run run = new Run(namespace());
        int threads = 6;
        proxy.seed(42).dropAnswers(share, LossyProxy.WRITES);
        long start = System.nanoTime();
        long end = start + length.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String owner = "worker-" + t;
                Random random = new Random(7 + t);
                done.add(pool.submit(() -> {
                    TreeLocks locks = null;
                    for (int n = 0; System.nanoTime() - end < 0; n++) {
                        if (locks == null || (twoHosts && n % SECTIONS_PER_CLIENT == 0)) {
                            locks = worker(twoHosts, run.namespace, owner);
                        }
                        section(run, locks, random);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
            proxy.heal();
        }
        LoggerFactory.getLogger(getClass())
                .info(
                        "{} through {}: {} sections in {} ms, {} busy, {} acquires failed, {} answers lost of {}"
                                + " requests through the proxy, {} leases reported lost, {} releases unknown {}",
                        backend(),
                        twoHosts ? "the proxy and the node" : "the proxy alone",
                        run.sections.get(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
                        run.busy.get(),
                        run.acquireFailures.get(),
                        proxy.answersDropped(),
                        proxy.requests(),
                        run.lost.get(),
                        run.unknownReleases.get(),
                        run.failures);
        return run;
    }

    private static final int SECTIONS_PER_CLIENT = 20;

    private synchronized TreeLocks worker(boolean twoHosts, String namespace, String owner) {
        return locks(client(twoHosts), namespace, owner);
    }

    /** One exclusive section on {@code /a}: acquired, worked in, released; each outcome recorded. */
    private static void section(Run run, TreeLocks locks, Random random) {
        AcquireResult<TreeLock> r;
        try {
            r = locks.acquire(
                    LockRequest.of(b -> b.path("/a").mode(LockMode.EXCLUSIVE).maxWait(Duration.ofSeconds(2))));
        } catch (TreeLockException e) {
            // Reported, not guessed: its grant, if any, was given back (the run checks that nothing is left).
            if (e.status() != TreeLockException.UNAVAILABLE) {
                run.unexpected.add("acquire: " + e);
            }
            run.failures.add("acquire: " + e.getMessage());
            run.acquireFailures.incrementAndGet();
            return;
        }
        if (!r.acquired()) {
            run.busy.incrementAndGet();
            return;
        }
        TreeLock lock = r.orThrow();
        run.checker.granted(lock);
        run.sections.incrementAndGet();
        AbstractTreeLocksContractIT.sleep(Duration.ofMillis(random.nextInt(4)));
        run.checker.releasing(lock);
        try {
            lock.close();
        } catch (LeaseLostException e) {
            run.lost.incrementAndGet();
            run.unexpected.add("false loss: " + e.getMessage());
        } catch (TreeLockException e) {
            run.unknownReleases.incrementAndGet();
            run.unknownTokens.add(lock.token());
            run.failures.add("release: " + e.getMessage());
        }
    }
}
