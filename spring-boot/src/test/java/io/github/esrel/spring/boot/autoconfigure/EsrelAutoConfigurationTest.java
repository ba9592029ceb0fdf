package io.github.esrel.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.ExceptionTranslator;
import io.github.esrel.join.Join;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.micrometer.EsrelMicrometer;
import io.github.esrel.occ.ExternalVersions;
import io.github.esrel.occ.Occ;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.spring.data.SpringDataDocumentConverter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.elasticsearch.client.elc.ElasticsearchTemplate;

/**
 * The conditions that decide before any client-backed object is built, so that no cluster is needed: without a client
 * bean and with {@code esrel.enabled=false} nothing of esrel's exists (the client bean of the second points at a port
 * nobody listens on, and nothing connects); and how {@code esrel.*} binds. What the beans are once built is
 * {@link EsrelAutoConfigurationIT}'s, on a real node.
 */
class EsrelAutoConfigurationTest {

    private static final AutoConfigurations ESREL = AutoConfigurations.of(
            EsrelMetricsAutoConfiguration.class,
            EsrelSpringDataAutoConfiguration.class,
            EsrelAutoConfiguration.class,
            EsrelHealthAutoConfiguration.class);

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(BootLine.METRICS).withConfiguration(ESREL);

    @Test
    void shouldMakeNoEsrelBeanWithoutAClientBean() {
        runner.withPropertyValues("esrel.locks.namespace=fs").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(ElasticsearchClient.class);
            assertNoEsrelBean(context);
        });
    }

    @Test
    void shouldMakeNoEsrelBeanWhenDisabled() {
        runner.withConfiguration(BootLine.CLIENT)
                .withPropertyValues(
                        "spring.elasticsearch.uris=http://127.0.0.1:1",
                        "esrel.enabled=false",
                        "esrel.locks.namespace=fs")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(ElasticsearchClient.class);
                    assertNoEsrelBean(context);
                });
    }

    private static void assertNoEsrelBean(
            org.springframework.boot.test.context.assertj.AssertableApplicationContext c) {
        assertThat(c)
                .doesNotHaveBean(Occ.class)
                .doesNotHaveBean(ExternalVersions.class)
                .doesNotHaveBean(RoutingClient.class)
                .doesNotHaveBean(TreeLocks.class)
                .doesNotHaveBean(JoinDefaults.class)
                .doesNotHaveBean(PropagationDefaults.class)
                .doesNotHaveBean(ExceptionTranslator.class)
                .doesNotHaveBean(EsrelMicrometer.class)
                .doesNotHaveBean(EsrelProperties.class)
                .doesNotHaveBean("esrelHealthIndicator");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(EsrelProperties.class)
    static class PropertiesOnly {}

    /** An application with Spring Data Elasticsearch: its template on Boot's client (building it connects nowhere). */
    @Configuration(proxyBeanMethods = false)
    static class SpringDataTemplate {
        @Bean
        ElasticsearchTemplate elasticsearchTemplate(ElasticsearchClient client) {
            return new ElasticsearchTemplate(client);
        }
    }

    @Test
    void shouldMapEntitiesWithSpringDatasConverterWhenTheApplicationHasSpringData() {
        runner.withConfiguration(BootLine.CLIENT)
                .withUserConfiguration(SpringDataTemplate.class)
                .withPropertyValues("spring.elasticsearch.uris=http://127.0.0.1:1")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(SpringDataDocumentConverter.class);
                    SpringDataDocumentConverter converter = context.getBean(SpringDataDocumentConverter.class);
                    assertThat(converter.isEntity(Entity.class)).isTrue();
                    assertThat(converter.isEntity(NoEntity.class)).isFalse();
                    assertThat(context.getBeansOfType(OccCustomizer.class)).containsKey("esrelSpringDataOccCustomizer");
                    assertThat(context.getBeansOfType(JoinCustomizer.class))
                            .containsKey("esrelSpringDataJoinCustomizer");
                    assertThat(context).hasSingleBean(Occ.class);
                });
    }

    @Test
    void shouldKeepTheClientsMapperWithoutSpringData() {
        runner.withConfiguration(BootLine.CLIENT)
                .withClassLoader(new FilteredClassLoader("org.springframework.data.elasticsearch"))
                .withPropertyValues("spring.elasticsearch.uris=http://127.0.0.1:1")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(Occ.class)
                        .doesNotHaveBean(SpringDataDocumentConverter.class)
                        .doesNotHaveBean("esrelSpringDataOccCustomizer"));
    }

    @org.springframework.data.elasticsearch.annotations.Document(indexName = "entities")
    record Entity(String id) {}

    record NoEntity(String id) {}

    @Test
    void shouldBindEveryEsrelProperty() {
        new ApplicationContextRunner()
                .withUserConfiguration(PropertiesOnly.class)
                .withPropertyValues(
                        "esrel.occ.max-attempts=7",
                        "esrel.occ.deadline=3s",
                        "esrel.occ.backoff.initial=2ms",
                        "esrel.occ.backoff.max=40ms",
                        "esrel.occ.backoff.multiplier=3",
                        "esrel.occ.combine-writes=false",
                        "esrel.occ.routing-check=false",
                        "esrel.occ.write-log=_esrel_writes",
                        "esrel.locks.namespace=fs",
                        "esrel.locks.provider=documents",
                        "esrel.locks.ttl=20s",
                        "esrel.locks.owner=app-1",
                        "esrel.locks.wait-backoff.initial=20ms",
                        "esrel.locks.wait-backoff.max=1s",
                        "esrel.locks.renewal-threads=2",
                        "esrel.locks.lock-index=app-locks",
                        "esrel.locks.create-lock-index=false",
                        "esrel.routing.source=cluster-state",
                        "esrel.join.max-parents=500",
                        "esrel.join.page-size=100",
                        "esrel.join.max-probed-children=50",
                        "esrel.join.pit-keep-alive=2m",
                        "esrel.propagation.bulks-in-flight=3",
                        "esrel.propagation.max-docs-per-second=250.5",
                        "esrel.propagation.batch-size=200",
                        "esrel.health.timeout=2s")
                .run(context -> {
                    EsrelProperties p = context.getBean(EsrelProperties.class);
                    assertThat(p.getOcc().getMaxAttempts()).isEqualTo(7);
                    assertThat(p.getOcc().getDeadline()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(p.getOcc().getBackoff().getInitial()).isEqualTo(Duration.ofMillis(2));
                    assertThat(p.getOcc().getBackoff().getMax()).isEqualTo(Duration.ofMillis(40));
                    assertThat(p.getOcc().getBackoff().getMultiplier()).isEqualTo(3.0);
                    assertThat(p.getOcc().isCombineWrites()).isFalse();
                    assertThat(p.getOcc().isRoutingCheck()).isFalse();
                    assertThat(p.getOcc().getWriteLog()).isEqualTo("_esrel_writes");
                    assertThat(p.getLocks().getNamespace()).isEqualTo("fs");
                    assertThat(p.getLocks().getProvider()).isEqualTo(TreeLocks.Backend.DOCUMENTS);
                    assertThat(p.getLocks().getTtl()).isEqualTo(Duration.ofSeconds(20));
                    assertThat(p.getLocks().getOwner()).isEqualTo("app-1");
                    assertThat(p.getLocks().getWaitBackoff().getInitial()).isEqualTo(Duration.ofMillis(20));
                    assertThat(p.getLocks().getWaitBackoff().getMax()).isEqualTo(Duration.ofSeconds(1));
                    assertThat(p.getLocks().getRenewalThreads()).isEqualTo(2);
                    assertThat(p.getLocks().getLockIndex()).isEqualTo("app-locks");
                    assertThat(p.getLocks().isCreateLockIndex()).isFalse();
                    assertThat(p.getRouting().getSource()).isEqualTo(RoutingClient.Source.CLUSTER_STATE);
                    assertThat(p.getJoin().getMaxParents()).isEqualTo(500);
                    assertThat(p.getJoin().getPageSize()).isEqualTo(100);
                    assertThat(p.getJoin().getMaxProbedChildren()).isEqualTo(50);
                    assertThat(p.getJoin().getPitKeepAlive()).isEqualTo(Duration.ofMinutes(2));
                    assertThat(p.getPropagation().getBulksInFlight()).isEqualTo(3);
                    assertThat(p.getPropagation().getMaxDocsPerSecond()).isEqualTo(250.5);
                    assertThat(p.getPropagation().getBatchSize()).isEqualTo(200);
                    assertThat(p.getHealth().getTimeout()).isEqualTo(Duration.ofSeconds(2));
                });
    }

    /** The literals in EsrelProperties (the configuration processor reads only literals) are the core's defaults. */
    @Test
    void shouldDefaultToTheCoresDefaults() {
        EsrelProperties p = new EsrelProperties();
        assertThat(p.isEnabled()).isTrue();
        assertThat(p.getOcc().getMaxAttempts()).isEqualTo(Occ.DEFAULT_MAX_ATTEMPTS);
        assertThat(p.getOcc().getDeadline()).isEqualTo(Occ.DEFAULT_DEADLINE);
        assertThat(p.getOcc().getBackoff().toBackoff().toString()).isEqualTo(RetryPolicy.DEFAULT_BACKOFF.toString());
        assertThat(p.getOcc().isCombineWrites()).isTrue();
        assertThat(p.getOcc().isRoutingCheck()).isTrue();
        assertThat(p.getLocks().getNamespace()).isNull();
        assertThat(p.getLocks().getProvider()).isEqualTo(TreeLocks.Backend.AUTO);
        assertThat(p.getLocks().getTtl()).isEqualTo(TreeLocks.Builder.DEFAULT_TTL);
        assertThat(p.getLocks().getWaitBackoff().toBackoff().toString())
                .isEqualTo(TreeLocks.Builder.DEFAULT_WAIT_BACKOFF.toString());
        assertThat(p.getLocks().getLockIndex()).isEqualTo(TreeLocks.Builder.DEFAULT_LOCK_INDEX);
        assertThat(p.getLocks().isCreateLockIndex()).isTrue();
        assertThat(p.getLocks().getRenewalThreads()).isEqualTo(1);
        assertThat(p.getRouting().getSource()).isEqualTo(RoutingClient.Source.AUTO);
        assertThat(p.getJoin().getMaxParents()).isEqualTo(Join.DEFAULT_MAX_PARENTS);
        assertThat(p.getJoin().getPageSize()).isEqualTo(Join.DEFAULT_PAGE_SIZE);
        assertThat(p.getJoin().getMaxProbedChildren()).isEqualTo(Join.DEFAULT_MAX_PROBED_CHILDREN);
        assertThat(p.getPropagation().getBulksInFlight()).isNull();
        assertThat(p.getPropagation().getMaxDocsPerSecond()).isZero();
        assertThat(p.getPropagation().getBatchSize()).isEqualTo(1000);
    }
}
