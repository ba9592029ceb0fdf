package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.Refresh;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockConflict;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.elasticsearch.client.ResponseException;
import org.junit.jupiter.api.Test;

/**
 * esrel-client-es8 (elasticsearch-java 8.x, whose only transport is the RestClient one) on a node of this
 * build's version: 8.19, and 9.x, which the 8.x client talks to as well. The transport lets the low-level
 * client throw a raw ResponseException for a 409; esrel must still see version conflicts (OCC retries) and
 * busy locks (a conflict, not a failure).
 */
@EsrelTest
class ClientLineIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    /** A counter document. */
    record Counter(int n) {}

    @Test
    void shouldTreatConflictsAsOnEveryOtherLine() throws Exception {
        ElasticsearchClient es = cluster.client();
        // Writers that conflict (no write combining): the 409s must come back through the 8.x client.
        Occ occ = Occ.of(b -> b.client(es).combineWrites(false).retryPolicy(RetryPolicy.of(p -> p.maxAttempts(1000))));
        es.index(i -> i.index("line-counters").id("1").document(new Counter(0)).refresh(Refresh.True));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Outcome<Counter>>> increments = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                increments.add(pool.submit(
                        () -> occ.update("line-counters", "1", Counter.class, c -> new Counter(c.n() + 1))));
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
        assertThat(es.get(g -> g.index("line-counters").id("1"), Counter.class)
                        .source()
                        .n())
                .isEqualTo(200);

        es.indices().create(c -> c.index("line-fs")); // the plugin keeps locks per existing index
        try (TreeLocks locks = TreeLocks.of(b -> b.client(es).index("line-fs").backend(TreeLocks.Backend.PLUGIN))) {
            TreeLock held = locks.acquire("/a", LockMode.EXCLUSIVE).orThrow();
            AcquireResult<TreeLock> busy = locks.acquire("/a/b", LockMode.SHARED, Duration.ZERO);
            assertThat(busy.acquired()).isFalse();
            assertThat(busy.conflicts()).extracting(LockConflict::path).containsExactly("/a");
            held.close();
        }

        // What esrel corrects: the raw 8.x client reports that 409 as an I/O failure, not as Elasticsearch's error.
        assertThatThrownBy(() -> es.index(i -> i.index("line-counters")
                        .id("1")
                        .ifSeqNo(999L)
                        .ifPrimaryTerm(1L)
                        .document(new Counter(-1))))
                .isInstanceOf(ResponseException.class)
                .isNotInstanceOf(ElasticsearchException.class);
    }
}
