package io.github.esrel.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

/** docs/tree-locks.md, ShedLock: the provider built by hand and a task fenced by its lock's token. */
@EsrelTest
class ShedLockGuideIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final List<String> ran = new ArrayList<>();

    @Test
    void shouldRunATaskUnderItsLockAndFenceIt(ElasticsearchClient es) throws IOException {
        es.indices().create(c -> c.index("guide-jobs"));
        // tag::provider[]
        TreeLocks treeLocks = TreeLocks.of(b -> b.client(es).index("guide-jobs")); // close it after the scheduler
        LockProvider provider = EsrelLockProvider.of(treeLocks); // each name: an exclusive lock below /shedlock
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
        executor.executeWithLock(
                (Runnable) this::nightlyReport,
                new LockConfiguration(Instant.now(), "nightly-report", Duration.ofMinutes(10), Duration.ofSeconds(30)));
        // end::provider[]
        try {
            assertThat(ran).containsExactly("report");
            // tag::token[]
            Optional<SimpleLock> lock = provider.lock(
                    new LockConfiguration(Instant.now(), "reindex", Duration.ofMinutes(10), Duration.ZERO));
            if (lock.isPresent()) {
                EsrelSimpleLock held = (EsrelSimpleLock) lock.get();
                try {
                    reindex(held.token()); // write with it as an external version: a late holder is refused
                } finally {
                    held.unlock();
                }
            }
            // end::token[]
            assertThat(ran).hasSize(2);
        } finally {
            treeLocks.close();
        }
    }

    private void nightlyReport() {
        ran.add("report");
    }

    private void reindex(long token) {
        assertThat(token).isPositive();
        ran.add("reindex " + token);
    }
}
