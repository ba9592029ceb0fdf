package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import io.github.esrel.fs.FileTree;
import io.github.esrel.join.Join;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockConflict;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.Test;

/**
 * esrel-client (elasticsearch-java 9.x) and the server lines it can and cannot talk to. Each test starts the
 * node it needs: an 8.19 node, which refuses every request of a 9.x client, and a node of this build's version
 * for the client on elasticsearch-java's legacy RestClient transport.
 */
@EsrelTest
class ClientLineIT {

    private static final String EIGHT = "8.19.21";

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    @Test
    void shouldRefuseAnEightNineteenServerAtOnceNamingTheArtifactToUse() {
        try (EsCluster eight = EsCluster.builder().version(EIGHT).plugin(false).build()) {
            eight.start();
            ElasticsearchClient es = eight.client();
            List<Supplier<Object>> entryPoints = List.of(
                    () -> Occ.of(b -> b.client(es)),
                    () -> Join.of(b -> b.client(es)),
                    () -> RoutingClient.of(b -> b.client(es)),
                    () -> FileTree.of(b -> b.client(es).index("fs")),
                    () -> TreeLocks.of(b -> b.client(es).index("fs")));
            for (Supplier<Object> entryPoint : entryPoints) {
                assertThatThrownBy(entryPoint::get)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("refuses the requests of elasticsearch-java 9.x")
                        .hasMessageContaining("Accept version must be either version 8 or 7, but found 9")
                        .hasMessageContaining("io.github.esrel:esrel-client-es8");
            }
        }
    }

    /**
     * The legacy transport lets the low-level client throw a raw ResponseException for a 409: esrel must still
     * see version conflicts (OCC retries) and busy locks (a conflict, not a failure) on it.
     */
    @Test
    void shouldTreatConflictsAlikeOnTheLegacyRestClientTransport() throws Exception {
        try (RestClient rest = RestClient.builder(hostOf(cluster.httpUri())).build()) {
            ElasticsearchClient legacy =
                    new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));

            // Writers that conflict (no write combining): the 409s must come back through this transport.
            Occ occ = Occ.of(
                    b -> b.client(legacy).combineWrites(false).retryPolicy(RetryPolicy.of(p -> p.maxAttempts(1000))));
            legacy.index(i ->
                    i.index("legacy-counters").id("1").document(new Counter(0)).refresh(Refresh.True));
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<Outcome<Counter>>> increments = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    increments.add(pool.submit(
                            () -> occ.update("legacy-counters", "1", Counter.class, c -> new Counter(c.n() + 1))));
                }
                int retries = 0;
                for (Future<Outcome<Counter>> increment : increments) {
                    Outcome<Counter> outcome = increment.get();
                    assertThat(outcome.status()).isEqualTo(Outcome.Status.UPDATED);
                    retries += outcome.attempts() - 1;
                }
                assertThat(retries)
                        .as("concurrent writers met 409s, and esrel retried them")
                        .isPositive();
            } finally {
                pool.shutdownNow();
            }
            assertThat(legacy.get(g -> g.index("legacy-counters").id("1"), Counter.class)
                            .source()
                            .n())
                    .isEqualTo(200);

            legacy.indices().create(c -> c.index("legacy-fs")); // the plugin keeps locks per existing index
            try (TreeLocks locks =
                    TreeLocks.of(b -> b.client(legacy).index("legacy-fs").backend(TreeLocks.Backend.PLUGIN))) {
                TreeLock held = locks.acquire("/a", LockMode.EXCLUSIVE).orThrow();
                AcquireResult<TreeLock> busy = locks.acquire("/a/b", LockMode.SHARED, Duration.ZERO);
                assertThat(busy.acquired()).isFalse();
                assertThat(busy.conflicts()).extracting(LockConflict::path).containsExactly("/a");
                held.close();
            }

            // And an error that is an error stays one, with Elasticsearch's status and type.
            assertThatThrownBy(() -> legacy.index(i -> i.index("legacy-counters")
                            .id("1")
                            .ifSeqNo(999L)
                            .ifPrimaryTerm(1L)
                            .document(Map.of("n", -1))))
                    .as("the raw client on this transport, without esrel: not an ElasticsearchException")
                    .isNotInstanceOf(ElasticsearchException.class);
        }
    }

    /** A counter document. */
    record Counter(int n) {}

    private static HttpHost hostOf(URI uri) {
        return new HttpHost(uri.getHost(), uri.getPort(), uri.getScheme());
    }
}
