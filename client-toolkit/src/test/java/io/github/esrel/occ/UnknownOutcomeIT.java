package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import io.github.esrel.doc.DocRef;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.testenv.LossyProxy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.http.Header;
import org.apache.http.HttpHost;
import org.apache.http.message.BasicHeader;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Unknown outcomes on a real node, through a client of one host: the node applies a write, and its answer is lost on
 * the way back (a proxy in front of the node closes the client's connection instead of passing the answer on), as when
 * a node or a link fails mid-request. esrel must neither report the write as done nor send it again: the outcome is
 * {@code UNKNOWN} for {@code Occ}'s calls (every call a combined write carried), {@link BulkUpdate}'s items and
 * {@link ExternalVersions}, and the document shows the write applied exactly once; with the write log, the document
 * tells, and the write is reported applied. {@link LostAnswersIT} does the same on clients of several hosts.
 */
@EsrelTest
class UnknownOutcomeIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static final String INDEX = "unknown-outcomes";

    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
    record Counter(long votes) {
        Counter vote() {
            return new Counter(votes + 1);
        }
    }

    private LossyProxy proxy;
    private RestClient rest;
    private ElasticsearchClient client;

    @BeforeEach
    void connectThroughTheProxy() throws IOException {
        proxy = LossyProxy.to(cluster.httpUri());
        rest = RestClient.builder(new HttpHost("127.0.0.1", proxy.port(), "http"))
                .setDefaultHeaders(headers())
                .build();
        client = new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
        cluster.client().indices().delete(d -> d.index(INDEX).ignoreUnavailable(true));
        cluster.client()
                .indices()
                .create(c -> c.index(INDEX).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
    }

    @AfterEach
    void disconnect() throws IOException {
        rest.close();
        proxy.close();
    }

    @AfterAll
    static void cleanUp() throws IOException {
        cluster.client().indices().delete(d -> d.index(INDEX).ignoreUnavailable(true));
    }

    @Test
    void shouldReportAnUpdateWhoseAnswerWasLostAsUnknownAndNotSendItAgain() throws Exception {
        Occ occ = Occ.of(b -> b.client(client));
        store("1", 0);
        proxy.dropAnswerToNext(line -> line.contains("if_seq_no"));

        Outcome<Counter> o = occ.tryUpdate(DocRef.of(INDEX, "1"), Counter.class, Counter::vote);

        assertThat(o.status()).isEqualTo(Outcome.Status.UNKNOWN);
        assertThat(o.unknown()).isTrue();
        assertThat(o.error()).contains("not sent again");
        assertThat(proxy.answersDropped()).isEqualTo(1);
        assertThat(votes("1")).as("the node applied it, once").isEqualTo(1);
        assertThatThrownBy(o::orThrow).isInstanceOf(OccUnknownOutcomeException.class);

        proxy.dropAnswerToNext(line -> line.contains("if_seq_no"));
        assertThatThrownBy(() -> occ.update(INDEX, "1", Counter.class, Counter::vote))
                .isInstanceOf(OccUnknownOutcomeException.class)
                .hasMessageContaining("UNKNOWN")
                .satisfies(e -> assertThat(
                                ((OccUnknownOutcomeException) e).outcome().status())
                        .isEqualTo(Outcome.Status.UNKNOWN));
        assertThat(votes("1")).isEqualTo(2);
    }

    @Test
    void shouldReportEveryCallOfALostCombinedWriteAsUnknown() throws Exception {
        Occ occ = Occ.of(b -> b.client(client));
        store("hot", 0);
        // The first write goes through; the one after it carries the calls queued meanwhile, and its answer is lost.
        proxy.dropAnswerToNext(line -> line.contains("if_seq_no"));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<Outcome<Counter>>> calls = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                calls.add(pool.submit((Callable<Outcome<Counter>>)
                        () -> occ.tryUpdate(DocRef.of(INDEX, "hot"), Counter.class, Counter::vote)));
            }
            long unknown = 0;
            long updated = 0;
            for (Future<Outcome<Counter>> f : calls) {
                Outcome.Status s = f.get(60, TimeUnit.SECONDS).status();
                unknown += s == Outcome.Status.UNKNOWN ? 1 : 0;
                updated += s == Outcome.Status.UPDATED ? 1 : 0;
            }
            assertThat(unknown).as("the calls the lost write carried").isPositive();
            assertThat(unknown + updated).isEqualTo(8);
            assertThat(votes("hot"))
                    .as("every call applied once: the lost write was not sent again")
                    .isEqualTo(8);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldReportTheItemsOfALostBulkAsUnknown() throws Exception {
        Occ occ = Occ.of(b -> b.client(client));
        for (int i = 0; i < 5; i++) {
            store("b" + i, 10);
        }
        proxy.dropAnswerToNext(line -> line.contains("_bulk"));
        BulkUpdate<Counter> bulk = occ.bulk(Counter.class);
        for (int i = 0; i < 5; i++) {
            bulk.update(INDEX, "b" + i, Counter::vote);
        }
        BulkOutcome<Counter> out = bulk.tryExecute();
        assertThat(out.count(Outcome.Status.UNKNOWN)).isEqualTo(5);
        assertThat(out.complete()).isFalse();
        for (int i = 0; i < 5; i++) {
            assertThat(votes("b" + i)).as("applied once").isEqualTo(11);
        }
        assertThatThrownBy(out::orThrow).isInstanceOf(OccUnknownOutcomeException.class);
    }

    @Test
    void shouldReportALostReplaceAndConditionalDeleteAsUnknown() throws Exception {
        Occ occ = Occ.of(b -> b.client(client));
        store("r", 1);
        Versioned<Counter> seen = occ.get(INDEX, "r", Counter.class).orElseThrow();
        proxy.dropAnswerToNext(line -> line.contains("if_seq_no"));
        assertThat(occ.tryReplace(seen, new Counter(42)).status()).isEqualTo(Outcome.Status.UNKNOWN);
        assertThat(votes("r")).isEqualTo(42);

        proxy.dropAnswerToNext(line -> line.contains("/_bulk")); // a conditional delete goes as a bulk of one
        assertThat(occ.tryDeleteIf(DocRef.of(INDEX, "r"), Counter.class, c -> c.votes() == 42)
                        .status())
                .isEqualTo(Outcome.Status.UNKNOWN);
        assertThat(cluster.client()
                        .get(g -> g.index(INDEX).id("r"), Counter.class)
                        .found())
                .as("the node deleted it")
                .isFalse();
    }

    @Test
    void shouldReportALostExternalVersionWriteAsUnknown() throws Exception {
        ExternalVersions ext = ExternalVersions.of(b -> b.client(client));
        proxy.dropAnswerToNext(line -> line.contains("version_type"));
        ExternalWrite w = ext.index(INDEX, "x", 7, new Counter(7));
        assertThat(w.status()).isEqualTo(ExternalWrite.Status.UNKNOWN);
        assertThat(w.unknown()).isTrue();
        assertThat(w.applied()).isFalse();
        assertThat(w.explanation()).contains("not sent again");
        assertThat(cluster.client()
                        .get(g -> g.index(INDEX).id("x"), Counter.class)
                        .version())
                .isEqualTo(7);
        assertThat(ext.index(INDEX, "x", 7, new Counter(7)).status())
                .as("sending it again is safe with external versions")
                .isEqualTo(ExternalWrite.Status.STALE);
    }

    @Test
    void shouldReportTheItemsOfALostBulkAsAppliedByTheWriteLog() throws Exception {
        Occ occ = Occ.of(b -> b.client(client).writeLog(true));
        for (int i = 0; i < 5; i++) {
            store("l" + i, 10);
        }
        proxy.dropAnswerToNext(line -> line.contains("_bulk"));
        BulkUpdate<Counter> bulk = occ.bulk(Counter.class);
        for (int i = 0; i < 5; i++) {
            bulk.update(INDEX, "l" + i, Counter::vote);
        }
        BulkOutcome<Counter> out = bulk.execute();
        assertThat(out.items()).allSatisfy(o -> {
            assertThat(o.status()).isEqualTo(Outcome.Status.UPDATED);
            assertThat(o.error()).isEqualTo(ConditionalWrite.APPLIED_UNSEEN);
        });
        for (int i = 0; i < 5; i++) {
            assertThat(votes("l" + i)).as("applied once").isEqualTo(11);
        }
    }

    private static Header[] headers() {
        return cluster.requestHeaders().entrySet().stream()
                .map(h -> new BasicHeader(h.getKey(), h.getValue()))
                .toArray(Header[]::new);
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
