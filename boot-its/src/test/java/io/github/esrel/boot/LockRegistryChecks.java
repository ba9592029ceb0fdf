package io.github.esrel.boot;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.PathNames;
import io.github.esrel.spring.integration.EsrelLock;
import io.github.esrel.spring.integration.EsrelLockRegistry;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration's lock registry in the application, as the starter wires it with esrel's registry on the class
 * path (esrel-spring-integration on Boot 4, esrel-spring-integration6 on Boot 3.5): the application's only
 * {@link LockRegistry} is the starter's {@link EsrelLockRegistry} on its {@code TreeLocks} bean, under the default
 * prefix; a lock through it is a tree lock another instance's registry cannot take. On the application context and
 * node of the class that implements it (no node of its own).
 */
interface LockRegistryChecks {

    @Test
    default void shouldWireSpringIntegrationsLockRegistryOnTheTreeLocksBean(
            @Autowired TreeLocks locks, ApplicationContext context) throws Exception {
        // Boot's client from the context: testenv resolves an ElasticsearchClient parameter too (its node's own).
        ElasticsearchClient es = context.getBean(ElasticsearchClient.class);
        // The registry from the context too, as an Object: LockRegistry takes a type argument on Spring Integration 7
        // and none on 6.5, and this code compiles on both.
        Object registry = context.getBean(LockRegistry.class);
        assertThat(registry).isInstanceOf(EsrelLockRegistry.class);
        EsrelLockRegistry esrel = (EsrelLockRegistry) registry;
        assertThat(esrel.pathOf("order.1"))
                .isEqualTo(PathNames.under(EsrelLockRegistry.DEFAULT_PREFIX).path("order.1"));
        boolean created = !es.indices().exists(e -> e.index(locks.index())).value();
        if (created) { // the namespace index; the tree-lock test creates it too, so it goes again afterwards
            es.indices().create(c -> c.index(locks.index()));
        }
        try {
            EsrelLock lock = esrel.obtain("order.1");
            assertThat(lock.tryLock()).isTrue();
            try (TreeLocks other =
                    TreeLocks.of(b -> b.client(es).index(locks.index()).owner("instance-b"))) {
                Lock theirs = EsrelLockRegistry.of(b -> b.treeLocks(other)).obtain("order.1");
                assertThat(theirs.tryLock()).as("another instance's registry").isFalse();
                assertThat(lock.token()).isPositive();
            } finally {
                lock.unlock();
            }
            assertThat(locks.list(EsrelLockRegistry.DEFAULT_PREFIX)).isEmpty();
        } finally {
            if (created) {
                es.indices().delete(d -> d.index(locks.index()));
            }
        }
    }
}
