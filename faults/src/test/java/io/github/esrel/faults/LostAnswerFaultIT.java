package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.BulkOutcome;
import io.github.esrel.occ.BulkUpdate;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccException;
import io.github.esrel.occ.Outcome;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.testenv.LossyProxy;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.http.Header;
import org.apache.http.HttpHost;
import org.apache.http.message.BasicHeader;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lost answers on a client of several hosts: every host of the client ({@code RestClient}, which both client lines
 * have) is a proxy in front of one node of the 3-node cluster that loses a share of what passes, in one of two ways,
 * while every capability built on conditional writes runs at once:
 * <ul>
 *   <li>{@link Mode#ANSWERS_LOST}: the node applied the request and its answer is lost;</li>
 *   <li>{@link Mode#REQUESTS_LOST}: the request is lost before it reaches the node.</li>
 * </ul>
 * The low-level client would send such a request again to the next host; esrel never lets it, and must tell the
 * caller the truth. A checker per capability:
 * <ul>
 *   <li>OCC counters (8 writers each, with and without the write log): per writer,
 *       {@code acknowledged <= applied <= acknowledged + unknown};</li>
 *   <li>bulk optimistic updates (rounds of 20 documents): the same per document;</li>
 *   <li>tree locks, the plugin's and the lock documents' ({@link LockLoad}): no two conflicting grants held at once,
 *       fencing tokens strictly increasing per path, nothing held once the load stopped and the leases ran out.</li>
 * </ul>
 * One {@code FIGURE} row per mode and capability: answers or requests lost, calls per outcome.
 */
@EsrelTest
class LostAnswerFaultIT {

    private static final Duration PHASE = Duration.ofSeconds(15);
    private static final double SHARE = 0.1;
    private static final int WRITERS = 8;
    private static final int BULK_DOCS = 20;
    private static final Duration PATIENCE = Duration.ofMinutes(2);

    @Cluster
    static final EsCluster cluster = FaultCluster.build();

    /** What the proxies lose. */
    enum Mode {
        ANSWERS_LOST("answers lost after the node applied the request"),
        REQUESTS_LOST("requests lost before the node");

        final String what;

        Mode(String what) {
            this.what = what;
        }
    }

    private final List<LossyProxy> proxies = new ArrayList<>();
    private RestClient rest;

    @AfterEach
    void closeClientAndProxies() throws IOException {
        if (rest != null) {
            rest.close();
        }
        for (LossyProxy p : proxies) {
            p.close();
        }
        proxies.clear();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void shouldTellTheTruthOfEveryWriteWhoseAnswerOrRequestIsLost(Mode mode) throws Exception {
        String fault = Math.round(SHARE * 100) + " % of writes' " + mode.what
                + ", on each of 3 hosts (elasticsearch-java " + co.elastic.clients.transport.Version.VERSION + ")";
        String index = "lost-answers-" + mode.name().toLowerCase(java.util.Locale.ROOT);
        ElasticsearchClient direct = cluster.client();
        direct.indices()
                .create(c -> c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
        cluster.waitForHealth("green", PATIENCE);

        String plugin = "lost-" + mode.ordinal() + "-p";
        String documents = "lost-" + mode.ordinal() + "-d";
        for (String ns : List.of(plugin, plugin + "-probe", documents, documents + "-probe")) {
            direct.indices()
                    .create(c -> c.index(ns).settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
        }
        // The lock indices exist before answers are lost: the plugin's on first use, the fallback's here.
        for (TreeLocks.Backend backend : TreeLocks.Backend.values()) {
            if (backend == TreeLocks.Backend.AUTO) {
                continue;
            }
            String ns = backend == TreeLocks.Backend.PLUGIN ? plugin : documents;
            try (TreeLocks warm = TreeLocks.of(b -> b.client(direct).index(ns).backend(backend))) {
                warm.acquire("/warm-up", io.github.esrel.lock.LockMode.SHARED)
                        .orThrow()
                        .release();
            }
        }
        cluster.waitForHealth("green", PATIENCE);

        ElasticsearchClient es = lossyClient(mode);
        OccLoad plain = OccLoad.on(direct, es, index, "plain", WRITERS, null);
        OccLoad logged = OccLoad.on(direct, es, index, "logged", WRITERS, "_esrel_writes");
        BulkLoad bulk = new BulkLoad(es, direct, index);
        List<LockLoad> locks = List.of(
                new LockLoad(es, TreeLocks.Backend.PLUGIN, plugin, plugin + "-probe", 3),
                new LockLoad(es, TreeLocks.Backend.DOCUMENTS, documents, documents + "-probe", 3));

        plain.start();
        logged.start();
        bulk.start();
        locks.forEach(LockLoad::start);
        Thread.sleep(PHASE.toMillis());
        plain.stop();
        logged.stop();
        bulk.stop();
        List<LockLoad.Phase> lockPhases = new ArrayList<>();
        for (LockLoad l : locks) {
            lockPhases.add(l.stop());
        }
        long lost = proxies.stream()
                .mapToLong(p -> mode == Mode.ANSWERS_LOST ? p.answersDropped() : p.requestsDropped())
                .sum();

        for (OccLoad load : List.of(plain, logged)) {
            OccLoad.Check check = load.check();
            String capability = load == plain
                    ? "OCC counter, " + WRITERS + " writers"
                    : "OCC counter with the write log, " + WRITERS + " writers";
            Figures.row(
                    fault,
                    capability,
                    check.acknowledged(),
                    check.violations() + check.beyondUnknown(),
                    -1,
                    lost + " lost in all; acknowledged " + check.acknowledged() + ", unknown " + load.unknowns()
                            + ", gave up " + load.gaveUp() + ", errors " + load.errors() + ", final " + check.total());
            assertThat(check.missing())
                    .as("%s: acknowledged increments missing", capability)
                    .isZero();
            assertThat(check.beyondUnknown())
                    .as("%s: increments applied beyond acknowledged + unknown (applied twice)", capability)
                    .isZero();
            assertThat(check.total()).isEqualTo(check.sumOfShares());
        }
        BulkLoad.Check b = bulk.check();
        Figures.row(
                fault,
                "bulk optimistic update, rounds of " + BULK_DOCS + " documents",
                b.acknowledged(),
                b.violations(),
                -1,
                lost + " lost in all; rounds " + b.rounds() + ", items acknowledged " + b.acknowledged() + ", unknown "
                        + b.unknown() + ", other " + b.other());
        assertThat(b.violations())
                .as("documents outside acknowledged <= applied <= acknowledged + unknown")
                .isZero();

        for (int i = 0; i < locks.size(); i++) {
            LockLoad load = locks.get(i);
            LockLoad.Phase p = lockPhases.get(i);
            long freeMs = load.awaitAllFree(PATIENCE);
            Figures.row(
                    fault,
                    "tree locks, " + load.backend(),
                    p.operations(),
                    p.violations(),
                    freeMs,
                    lost + " lost in all; granted " + p.granted() + ", busy " + p.refused() + ", errors " + p.errors()
                            + ", failed releases " + p.releaseErrors() + ", lost before release "
                            + p.lostBeforeRelease() + "; ms = until nothing is held after the load");
            assertThat(p.violations())
                    .as("%s: conflicting grants held at once, or tokens not increasing", load.backend())
                    .isZero();
        }
        assertThat(lost).as("the proxies lost something").isPositive();
        for (String i : List.of(index, plugin, plugin + "-probe", documents, documents + "-probe")) {
            direct.indices().delete(d -> d.index(i));
        }
    }

    /** An application's client of the three nodes, each behind a proxy that loses {@link #SHARE} of writes. */
    private ElasticsearchClient lossyClient(Mode mode) throws IOException {
        List<HttpHost> hosts = new ArrayList<>();
        long seed = 31;
        for (URI node : cluster.httpUris()) {
            LossyProxy p = LossyProxy.to(node).seed(seed++);
            if (mode == Mode.ANSWERS_LOST) {
                p.dropAnswers(SHARE, LossyProxy.WRITES);
            } else {
                p.dropRequests(SHARE, LossyProxy.WRITES);
            }
            proxies.add(p);
            hosts.add(new HttpHost(p.uri().getHost(), p.uri().getPort(), "http"));
        }
        rest = RestClient.builder(hosts.toArray(HttpHost[]::new))
                .setDefaultHeaders(cluster.requestHeaders().entrySet().stream()
                        .map(h -> new BasicHeader(h.getKey(), h.getValue()))
                        .toArray(Header[]::new))
                .build();
        return new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
    }

    /**
     * Rounds of {@code Occ.bulk} over {@value #BULK_DOCS} counters, each item adding one, on one thread: per document
     * the items acknowledged and unknown, against its count at the end.
     */
    private static final class BulkLoad {
        private final Occ occ;
        private final ElasticsearchClient direct;
        private final String index;
        private final long[] acknowledged = new long[BULK_DOCS];
        private final long[] unknown = new long[BULK_DOCS];
        private final AtomicBoolean stop = new AtomicBoolean();
        private long other;
        private int rounds;
        private Thread thread;
        private volatile Throwable failure;

        record Count(long n) {}

        record Check(long acknowledged, long unknown, long other, int rounds, long violations) {}

        BulkLoad(ElasticsearchClient es, ElasticsearchClient direct, String index) throws IOException {
            this.occ = Occ.of(b -> b.client(es));
            this.direct = direct;
            this.index = index;
            for (int d = 0; d < BULK_DOCS; d++) {
                String id = "bulk-" + d;
                direct.index(i -> i.index(index).id(id).document(new Count(0)));
            }
        }

        void start() {
            thread = new Thread(
                    () -> {
                        try {
                            while (!stop.get()) {
                                round();
                            }
                        } catch (Throwable e) {
                            failure = e;
                        }
                    },
                    "bulk-load");
            thread.start();
        }

        private void round() {
            BulkUpdate<Count> bulk = occ.bulk(Count.class);
            for (int d = 0; d < BULK_DOCS; d++) {
                bulk.update(index, "bulk-" + d, c -> new Count(c.n() + 1));
            }
            BulkOutcome<Count> out;
            try {
                out = bulk.tryExecute();
            } catch (OccException e) {
                other += BULK_DOCS; // the round failed as a whole: its items are told failed, and checked as unknown
                for (int d = 0; d < BULK_DOCS; d++) {
                    unknown[d]++;
                }
                return;
            }
            rounds++;
            for (int d = 0; d < BULK_DOCS; d++) {
                Outcome.Status s = out.item(d).status();
                if (s == Outcome.Status.UPDATED) {
                    acknowledged[d]++;
                } else if (s == Outcome.Status.UNKNOWN) {
                    unknown[d]++;
                } else {
                    other++;
                }
            }
        }

        void stop() throws InterruptedException {
            stop.set(true);
            thread.join(PATIENCE.toMillis());
            if (failure != null) {
                throw new AssertionError("the bulk load failed", failure);
            }
        }

        Check check() throws IOException {
            long violations = 0;
            long ack = 0;
            long unk = 0;
            for (int d = 0; d < BULK_DOCS; d++) {
                String id = "bulk-" + d;
                long n = direct.get(g -> g.index(index).id(id), Count.class)
                        .source()
                        .n();
                if (n < acknowledged[d] || n > acknowledged[d] + unknown[d]) {
                    violations++;
                }
                ack += acknowledged[d];
                unk += unknown[d];
            }
            return new Check(ack, unk, other, rounds, violations);
        }
    }
}
