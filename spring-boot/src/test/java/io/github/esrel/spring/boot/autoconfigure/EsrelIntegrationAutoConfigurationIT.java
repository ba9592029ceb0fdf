package io.github.esrel.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.PathNames;
import io.github.esrel.path.TreePath;
import io.github.esrel.spring.integration.EsrelLock;
import io.github.esrel.spring.integration.EsrelLockRegistry;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration's lock registry as the starter wires it, on a real node with the plugin (on the node the shared
 * cluster of the other starter ITs runs): the registry on the {@code TreeLocks} bean with the
 * {@code esrel.integration.*} properties, a lock through it that another instance's registry cannot take, and backing
 * off for the application's own registry, for {@code esrel.integration.enabled=false}, without a {@code TreeLocks}
 * bean, and without esrel's registry on the class path.
 */
@EsrelTest
class EsrelIntegrationAutoConfigurationIT {

    @Cluster
    static final EsCluster node = EsCluster.builder().shared().build();

    private static final String NAMESPACE = "boot-integration";

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.CLIENT)
                .withConfiguration(
                        AutoConfigurations.of(EsrelAutoConfiguration.class, EsrelIntegrationAutoConfiguration.class))
                .withPropertyValues("spring.elasticsearch.uris=" + node.httpUri());
    }

    @BeforeAll
    static void index() throws IOException {
        ElasticsearchClient es = node.client();
        if (!es.indices().exists(e -> e.index(NAMESPACE)).value()) {
            es.indices().create(c -> c.index(NAMESPACE));
        }
    }

    @Test
    void shouldRegisterTheLockRegistryOnTheTreeLocksBeanWithItsProperties() {
        runner().withPropertyValues(
                        "esrel.locks.namespace=" + NAMESPACE,
                        "esrel.integration.prefix=/flows/locks",
                        "esrel.integration.ttl=7s",
                        "esrel.integration.cache-capacity=2")
                .run(context -> {
                    // An Object: LockRegistry takes a type argument on Spring Integration 7 and none on 6.5, and
                    // this code compiles on both.
                    Object registry = context.getBean(LockRegistry.class);
                    assertThat(registry).isInstanceOf(EsrelLockRegistry.class);
                    EsrelLockRegistry esrel = (EsrelLockRegistry) registry;
                    assertThat(esrel.pathOf("order.1"))
                            .isEqualTo(
                                    PathNames.under(TreePath.of("/flows/locks")).path("order.1"));
                    EsrelLock lock = esrel.obtain("order.1");
                    assertThat(lock.tryLock()).isTrue();
                    try (TreeLocks other = TreeLocks.of(
                            b -> b.client(node.client()).index(NAMESPACE).owner("instance-b"))) {
                        EsrelLockRegistry second =
                                EsrelLockRegistry.of(b -> b.treeLocks(other).prefix("/flows/locks"));
                        Lock theirs = second.obtain("order.1");
                        assertThat(theirs.tryLock())
                                .as("the second instance's registry")
                                .isFalse();
                        assertThat(other.list(TreePath.of("/flows/locks")))
                                .singleElement()
                                .satisfies(info -> {
                                    assertThat(info.path()).isEqualTo(lock.path());
                                    // the lease is esrel.integration.ttl, not the registry's default of 60 s
                                    assertThat(info.holders().get(0).expiresAt())
                                            .isBefore(java.time.Instant.now().plus(Duration.ofSeconds(30)));
                                });
                    }
                    assertThat(lock.token()).isPositive();
                    lock.unlock();
                    assertThat(context.getBean(TreeLocks.class).list(TreePath.of("/flows/locks")))
                            .isEmpty();
                });
    }

    @Test
    void shouldBackOffForTheApplicationsRegistryAndWhenDisabledOrMissing() {
        DefaultLockRegistry own = new DefaultLockRegistry();
        runner().withPropertyValues("esrel.locks.namespace=" + NAMESPACE)
                .withBean(LockRegistry.class, () -> own)
                .run(context -> assertThat(context.getBean(LockRegistry.class)).isSameAs(own));
        runner().withPropertyValues("esrel.locks.namespace=" + NAMESPACE, "esrel.integration.enabled=false")
                .run(context ->
                        assertThat(context).hasSingleBean(TreeLocks.class).doesNotHaveBean(LockRegistry.class));
        runner().run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class));
        runner().withPropertyValues("esrel.locks.namespace=" + NAMESPACE)
                .withClassLoader(new FilteredClassLoader(EsrelLockRegistry.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(TreeLocks.class)
                        .doesNotHaveBean(LockRegistry.class));
        runner().withPropertyValues("esrel.locks.namespace=" + NAMESPACE)
                .withClassLoader(new FilteredClassLoader("org.springframework.integration"))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(TreeLocks.class));
    }
}
