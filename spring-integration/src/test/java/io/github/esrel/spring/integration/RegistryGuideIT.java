package io.github.esrel.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** docs/tree-locks.md, Spring Integration: the registry built by hand and one lock taken through it. */
@EsrelTest
class RegistryGuideIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    @Test
    void shouldLockAKeyAndHandItsToken(ElasticsearchClient es) throws Exception {
        es.indices().create(c -> c.index("guide-orders"));
        AtomicLong fenced = new AtomicLong();
        try (TreeLocks treeLocks = TreeLocks.of(b -> b.client(es).index("guide-orders"))) {
            // tag::registry[]
            EsrelLockRegistry registry = EsrelLockRegistry.of(b -> b.treeLocks(treeLocks) // not closed by the registry
                    .ttl(Duration.ofSeconds(30))); // the lease, renewed every ttl/3 while held
            EsrelLock lock = registry.obtain("order-42"); // an exclusive lock on /spring-integration/locks/order-42
            if (lock.tryLock(5, TimeUnit.SECONDS)) {
                try {
                    fenced.set(lock.token()); // hand it to the store this lock protects, as an external version
                } finally {
                    lock.unlock();
                }
            }
            // end::registry[]
        }
        assertThat(fenced.get()).isPositive();
    }
}
