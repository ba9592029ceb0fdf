package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.LowLevelClients;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.testenv.LossyProxy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lost answers on the clients production applications run: several hosts, on each low-level client of this line. A
 * proxy in front of the node loses the answer to a write after the node applied it (or loses the request before it
 * reaches the node); the low-level client would send the request again to the next host, where the copy conflicts
 * with the write itself. esrel's writes must never be applied twice nor reported as not applied: by default a write
 * whose answer was lost is {@code UNKNOWN} (or sent again where the document shows it not applied), never sent again
 * by the transport; with the write log every vote is counted once and reported done.
 */
@EsrelTest
class LostAnswersIT {

    private static final Logger LOG = LoggerFactory.getLogger(LostAnswersIT.class);

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static final String INDEX = "lost-answers";
    private static final Predicate<String> CONDITIONAL_WRITES = line -> line.contains("if_seq_no");

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Counter(long votes) {
        Counter vote() {
            return new Counter(votes + 1);
        }
    }

    private final List<LossyProxy> proxies = new ArrayList<>();

    static List<String> clients() {
        return LowLevelClients.names();
    }

    @BeforeEach
    void createIndex() throws IOException {
        cluster.client().indices().delete(d -> d.index(INDEX).ignoreUnavailable(true));
        cluster.client()
                .indices()
                .create(c -> c.index(INDEX).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
    }

    @AfterEach
    void closeProxies() throws IOException {
        for (LossyProxy p : proxies) {
            p.close();
        }
        proxies.clear();
        cluster.client().indices().delete(d -> d.index(INDEX).ignoreUnavailable(true));
    }

    private LossyProxy proxy() throws IOException {
        LossyProxy p = LossyProxy.to(cluster.httpUri());
        proxies.add(p);
        return p;
    }

    /** A client of the proxy and the node itself, as the issue found it: the first host loses answers. */
    private LowLevelClients.Hosts proxyAndNode(String kind, LossyProxy proxy) {
        return LowLevelClients.open(kind, List.of(proxy.uri(), cluster.httpUri()), cluster.requestHeaders());
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("clientsAndForms")
    void shouldNotSendAWriteWhoseAnswerWasLostToTheOtherHostNorApplyItTwice(String kind, String form) throws Exception {
        LossyProxy proxy = proxy();
        try (LowLevelClients.Hosts hosts = proxyAndNode(kind, proxy)) {
            Occ occ = Occ.of(b -> b.client(hosts.client()));
            store("1", 0);
            proxy.dropAnswerToNext(CONDITIONAL_WRITES);

            List<Outcome<Counter>> outcomes = voteUntilAnAnswerIsLost(occ, form, "1", proxy);

            assertThat(outcomes)
                    .filteredOn(o -> o.status() == Outcome.Status.UNKNOWN)
                    .singleElement()
                    .satisfies(o -> assertThat(o.error())
                            .contains("not sent again")
                            .contains("did not let the client send it to another host"));
            assertThat(outcomes)
                    .filteredOn(o -> o.status() != Outcome.Status.UNKNOWN)
                    .allSatisfy(o -> assertThat(o.status()).isEqualTo(Outcome.Status.UPDATED));
            assertThat(votes("1"))
                    .as("every vote applied once, the one whose answer was lost included")
                    .isEqualTo(outcomes.size());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("clients")
    void shouldReportAWriteWhoseAnswerWasLostAsAppliedByItsWriteLog(String kind) throws Exception {
        LossyProxy proxy = proxy();
        try (LowLevelClients.Hosts hosts = proxyAndNode(kind, proxy)) {
            Occ occ = Occ.of(b -> b.client(hosts.client()).writeLog(true));
            store("1", 0);
            proxy.dropAnswerToNext(CONDITIONAL_WRITES);

            List<Outcome<Counter>> outcomes = voteUntilAnAnswerIsLost(occ, "1", proxy);

            assertThat(outcomes).allSatisfy(o -> assertThat(o.status()).isEqualTo(Outcome.Status.UPDATED));
            assertThat(outcomes)
                    .filteredOn(o -> o.error() != null)
                    .singleElement()
                    .satisfies(o -> assertThat(o.error()).isEqualTo(ConditionalWrite.APPLIED_UNSEEN));
            assertThat(votes("1")).isEqualTo(outcomes.size());
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("clientsAndForms")
    void shouldSendAWriteAgainThatNeverReachedTheNode(String kind, String form) throws Exception {
        LossyProxy proxy = proxy();
        try (LowLevelClients.Hosts hosts = proxyAndNode(kind, proxy)) {
            Occ occ = Occ.of(b -> b.client(hosts.client()));
            store("1", 0);
            proxy.dropRequests(1.0, CONDITIONAL_WRITES);

            List<Outcome<Counter>> outcomes = new ArrayList<>();
            while (proxy.requestsDropped() == 0 && outcomes.size() < 50) {
                outcomes.add(vote(occ, form, "1"));
            }

            assertThat(proxy.requestsDropped()).isEqualTo(1);
            assertThat(outcomes)
                    .as("the document showed the write not applied: esrel sent it again, conditional on the same"
                            + " version")
                    .allSatisfy(o -> assertThat(o.status()).isEqualTo(Outcome.Status.UPDATED));
            assertThat(votes("1")).isEqualTo(outcomes.size());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("clients")
    void shouldReportAConditionalDeleteWhoseAnswerWasLostAsUnknown(String kind) throws Exception {
        LossyProxy proxy = proxy();
        try (LowLevelClients.Hosts hosts = proxyAndNode(kind, proxy)) {
            Occ occ = Occ.of(b -> b.client(hosts.client()));
            proxy.dropAnswerToNext(line -> line.contains("/_bulk")); // a conditional delete goes as a bulk of one
            List<Outcome<Counter>> outcomes = new ArrayList<>();
            for (int i = 0; proxy.answersDropped() == 0 && i < 50; i++) {
                store("d" + i, 1);
                outcomes.add(occ.tryDeleteIf(DocRef.of(INDEX, "d" + i), Counter.class, c -> c.votes() == 1));
            }
            assertThat(proxy.answersDropped()).isEqualTo(1);
            Outcome<Counter> lost = outcomes.get(outcomes.size() - 1);
            assertThat(lost.status())
                    .as("gone: deleted by this call or another, nothing tells")
                    .isEqualTo(Outcome.Status.UNKNOWN);
            assertThat(outcomes.subList(0, outcomes.size() - 1))
                    .allSatisfy(o -> assertThat(o.status()).isEqualTo(Outcome.Status.DELETED));
            assertThat(cluster.client()
                            .get(g -> g.index(INDEX).id(lost.id()), Counter.class)
                            .found())
                    .isFalse();
        }
    }

    /**
     * A copy esrel does not see: a proxy that sends a write again (as one that resends a request whose answer it lost,
     * or Elasticsearch running a write again on a new primary). The copy answers a conflict with the write itself: the
     * write log tells it applied; without the log it is taken for another writer's conflict and applied again, the
     * limit {@code Occ.Builder#writeLog(boolean)} documents.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("clients")
    void shouldRecogniseACopyItDoesNotSeeOnlyByTheWriteLog(String kind) throws Exception {
        LossyProxy proxy = proxy();
        try (LowLevelClients.Hosts hosts = LowLevelClients.open(kind, List.of(proxy.uri()), cluster.requestHeaders())) {
            store("1", 0);
            proxy.replayNextRequest(CONDITIONAL_WRITES);
            Outcome<Counter> logged = Occ.of(b -> b.client(hosts.client()).writeLog(true))
                    .update(INDEX, "1", Counter.class, Counter::vote);
            assertThat(proxy.requestsReplayed()).isEqualTo(1);
            assertThat(logged.status()).isEqualTo(Outcome.Status.UPDATED);
            assertThat(logged.error()).isEqualTo(ConditionalWrite.APPLIED_UNSEEN);
            assertThat(votes("1")).isEqualTo(1);

            store("2", 0);
            proxy.replayNextRequest(CONDITIONAL_WRITES);
            Occ.of(b -> b.client(hosts.client())).update(INDEX, "2", Counter.class, Counter::vote);
            assertThat(votes("2"))
                    .as("without the write log, a copy esrel does not see is taken for another writer's conflict")
                    .isEqualTo(2);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("clients")
    void shouldSendEveryWriteAsAPostWhichProxiesDoNotResend(String kind) throws Exception {
        LossyProxy proxy = proxy();
        List<String> methods = new java.util.concurrent.CopyOnWriteArrayList<>();
        proxy.dropAnswers(0, line -> {
            methods.add(line.substring(0, line.indexOf(' ')));
            return false;
        });
        try (LowLevelClients.Hosts hosts = LowLevelClients.open(kind, List.of(proxy.uri()), cluster.requestHeaders())) {
            Occ occ = Occ.of(b -> b.client(hosts.client()));
            occ.upsert(INDEX, "p", Counter.class, () -> new Counter(0), Counter::vote); // a create
            occ.update(INDEX, "p", Counter.class, Counter::vote); // an index conditional on a version
            Versioned<Counter> seen = occ.get(INDEX, "p", Counter.class).orElseThrow();
            occ.replace(seen, new Counter(9));
            occ.deleteIf(DocRef.of(INDEX, "p"), Counter.class, c -> c.votes() == 9);
            ExternalVersions external = ExternalVersions.of(b -> b.client(hosts.client()));
            external.index(INDEX, "x", 3, new Counter(3));
            assertThat(external.delete(INDEX, "x", 4).status()).isEqualTo(ExternalWrite.Status.DELETED);
            assertThat(methods).doesNotContain("PUT", "DELETE").contains("POST");
        }
    }

    /**
     * The run, on every host: 8 writers vote on one counter through a client of two hosts, both proxies in
     * front of the node that lose a fifth of the answers to writes. With the write log every vote is counted once and
     * reported done; without it, {@code acknowledged <= final <= acknowledged + unknown}.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("clients")
    void shouldCountEveryVoteOnceWhileAnswersAreLostOnEveryHost(String kind) throws Exception {
        LossyProxy first = proxy().seed(42).dropAnswers(0.2, LossyProxy.WRITES);
        LossyProxy second = proxy().seed(43).dropAnswers(0.2, LossyProxy.WRITES);
        try (LowLevelClients.Hosts hosts =
                LowLevelClients.open(kind, List.of(first.uri(), second.uri()), cluster.requestHeaders())) {
            Map<Outcome.Status, Long> logged =
                    voteConcurrently(Occ.of(b -> b.client(hosts.client()).writeLog(true)), "logged");
            long dropped = first.answersDropped() + second.answersDropped();
            Map<Outcome.Status, Long> plain = voteConcurrently(Occ.of(b -> b.client(hosts.client())), "plain");
            long droppedPlain = first.answersDropped() + second.answersDropped() - dropped;
            LOG.info(
                    "{}: with the write log {} answers lost, outcomes {}, final {}; without it {} lost, outcomes {},"
                            + " final {}",
                    kind,
                    dropped,
                    logged,
                    votes("logged"),
                    droppedPlain,
                    plain,
                    votes("plain"));

            assertThat(dropped).as("answers were lost").isPositive();
            assertThat(droppedPlain).as("answers were lost").isPositive();
            assertThat(logged).containsOnlyKeys(Outcome.Status.UPDATED);
            assertThat(votes("logged")).isEqualTo(logged.get(Outcome.Status.UPDATED));

            long acknowledged = plain.getOrDefault(Outcome.Status.UPDATED, 0L);
            long unknown = plain.getOrDefault(Outcome.Status.UNKNOWN, 0L);
            assertThat(plain.keySet()).isSubsetOf(Outcome.Status.UPDATED, Outcome.Status.UNKNOWN);
            assertThat(votes("plain")).isBetween(acknowledged, acknowledged + unknown);
        }
    }

    private static Map<Outcome.Status, Long> voteConcurrently(Occ occ, String id) throws Exception {
        store(id, 0);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Outcome<Counter>>> votes = new ArrayList<>();
            for (int i = 0; i < 480; i++) {
                votes.add(pool.submit(() -> occ.tryUpdate(DocRef.of(INDEX, id), Counter.class, Counter::vote)));
            }
            Map<Outcome.Status, Long> outcomes = new EnumMap<>(Outcome.Status.class);
            for (Future<Outcome<Counter>> vote : votes) {
                outcomes.merge(vote.get(2, TimeUnit.MINUTES).status(), 1L, Long::sum);
            }
            return outcomes;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Votes one at a time until the proxy has lost an answer (the low-level client picks the proxy in turn). */
    private static List<Outcome<Counter>> voteUntilAnAnswerIsLost(Occ occ, String id, LossyProxy proxy)
            throws Exception {
        return voteUntilAnAnswerIsLost(occ, "blocking", id, proxy);
    }

    private static List<Outcome<Counter>> voteUntilAnAnswerIsLost(Occ occ, String form, String id, LossyProxy proxy)
            throws Exception {
        List<Outcome<Counter>> outcomes = new ArrayList<>();
        while (proxy.answersDropped() == 0 && outcomes.size() < 50) {
            outcomes.add(vote(occ, form, id));
        }
        assertThat(proxy.answersDropped()).as("the proxy lost an answer").isEqualTo(1);
        return outcomes;
    }

    /**
     * The low-level clients of the line, each with the blocking form of {@code Occ} and its non-blocking form, whose
     * requests take the transport's async path (its resend guard included).
     */
    static Stream<Arguments> clientsAndForms() {
        return clients().stream()
                .flatMap(kind -> Stream.of(Arguments.of(kind, "blocking"), Arguments.of(kind, "async")));
    }

    /** One vote through {@code form}. */
    private static Outcome<Counter> vote(Occ occ, String form, String id) throws Exception {
        DocRef doc = DocRef.of(INDEX, id);
        return form.equals("async")
                ? occ.async().tryUpdate(doc, Counter.class, Counter::vote).get(60, TimeUnit.SECONDS)
                : occ.tryUpdate(doc, Counter.class, Counter::vote);
    }

    private static void store(String id, long votes) throws IOException {
        cluster.client().index(i -> i.index(INDEX).id(id).document(new Counter(votes)));
    }

    private static long votes(String id) throws IOException {
        return cluster.client()
                .get(g -> g.index(INDEX).id(id), Counter.class)
                .source()
                .votes();
    }
}
