package io.github.esrel.docs;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.Occ;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** docs/getting-started.md. */
@EsrelTest
class GettingStartedIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    /** A counter document. */
    record Counter(long value) {}

    @Test
    void shouldBuildTheEntryPointsOnTheApplicationsClient(ElasticsearchClient es) throws IOException {
        es.indices().create(c -> c.index("getting-started"));
        // tag::first-calls[]
        Occ occ = Occ.of(b -> b.client(es)); // every entry point takes your client the same way
        TreeLocks locks = TreeLocks.of(b -> b.client(es).index("getting-started")); // the index: the locks' namespace
        RoutingClient routing = RoutingClient.of(b -> b.client(es));

        occ.upsert("getting-started", "visits", Counter.class, () -> new Counter(0), c -> new Counter(c.value() + 1));
        try (TreeLock lock = locks.acquire("/reports/2026", LockMode.EXCLUSIVE).orThrow()) {
            int shard = routing.calculator("getting-started").shard("visits");
            System.out.printf("visits live on shard %d; token %d fences writes under the lock%n", shard, lock.token());
        }
        locks.close(); // ends its lease renewals; one TreeLocks per namespace and application
        // end::first-calls[]
        assertThat(occ.get("getting-started", "visits", Counter.class)
                        .orElseThrow()
                        .value()
                        .value())
                .isEqualTo(1);
    }
}
