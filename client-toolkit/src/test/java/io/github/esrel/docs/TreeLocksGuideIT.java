package io.github.esrel.docs;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.VersionType;
import io.github.esrel.health.HealthProbe;
import io.github.esrel.health.HealthReport;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockInfo;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/tree-locks.md. */
@EsrelTest
class TreeLocksGuideIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    @Test
    void shouldLockADirectoryAndFenceTheHoldersWrites(ElasticsearchClient es) throws IOException {
        es.indices().create(c -> c.index("guide-fs"));
        // tag::lock[]
        try (TreeLocks locks = TreeLocks.of(b -> b.client(es).index("guide-fs"))) { // plugin if there, else documents
            AcquireResult<TreeLock> r = locks.acquire("/clinton", LockMode.EXCLUSIVE, Duration.ofSeconds(5));
            if (!r.acquired()) {
                r.conflicts().forEach(c -> System.out.println(c.path() + " is held by " + c.owner()));
                return;
            }
            try (TreeLock lock = r.orThrow()) { // leased, renewed in the background until closed
                es.index(i -> i.index("guide-fs")
                        .id("/clinton/README.txt")
                        .versionType(VersionType.External) // fenced: the write of a holder whose lease
                        .version(lock.token()) // ended is refused once a later holder has written
                        .document(Map.of("text", "Some text about Elasticsearch")));
            }
        }
        // end::lock[]
        assertThat(es.get(g -> g.index("guide-fs").id("/clinton/README.txt"), Map.class)
                        .found())
                .isTrue();
    }

    @Test
    void shouldAskWithARequestAndListTheHolders(ElasticsearchClient es) throws IOException {
        es.indices().create(c -> c.index("guide-albums"));
        try (TreeLocks locks = TreeLocks.of(b -> b.client(es).index("guide-albums"))) {
            // tag::request[]
            LockRequest reading = LockRequest.of(b -> b.path("/photos/2026")
                    .mode(LockMode.SHARED) // shared with other readers, exclusive of writers below and above
                    .ttl(Duration.ofSeconds(30)) // the lease; renewed every third of it while held
                    .maxWait(Duration.ofSeconds(5))); // keep trying for 5 s, then answer with the conflicts
            try (TreeLock lock = locks.acquire(reading).orThrow()) {
                List<LockInfo> held = locks.list(TreePath.of("/photos")); // every grant at /photos or below it
                // end::request[]
                assertThat(held).hasSize(1);
                assertThat(held.get(0).holders().get(0).token()).isEqualTo(lock.token());
            }
        }
    }

    @Test
    void shouldReportTheHealthOfTheLocks(ElasticsearchClient es) throws IOException {
        es.indices().create(c -> c.index("guide-health"));
        try (TreeLocks locks = TreeLocks.of(b -> b.client(es).index("guide-health"))) {
            // tag::health[]
            HealthReport report =
                    HealthProbe.of(b -> b.client(es).treeLocks(locks)).check();
            if (!report.up()) { // a node without the plugin, the lock index red, the cluster unreachable
                System.out.println("esrel is DOWN: " + report.details());
            }
            // end::health[]
            assertThat(report.up()).as("%s", report).isTrue();
        }
    }
}
