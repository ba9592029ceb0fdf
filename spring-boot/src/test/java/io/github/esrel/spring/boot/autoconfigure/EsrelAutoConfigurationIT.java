package io.github.esrel.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.JsonData;
import io.github.esrel.ExceptionTranslator;
import io.github.esrel.join.Join;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.micrometer.EsrelMicrometer;
import io.github.esrel.occ.ExternalVersions;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.occ.Versioned;
import io.github.esrel.path.TreePath;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.shedlock.EsrelLockProvider;
import io.github.esrel.shedlock.EsrelSimpleLock;
import io.github.esrel.spring.EsrelCannotAcquireLockException;
import io.github.esrel.spring.EsrelOptimisticLockingFailureException;
import io.github.esrel.spring.SpringExceptionTranslator;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.OptimisticLockingFailureException;

/**
 * The auto-configuration on a real node with the plugin, on the client Boot's own auto-configuration builds from
 * {@code spring.elasticsearch.uris}: the beans and how the properties reach them, backing off for the application's
 * own beans, the optional parts (Micrometer, the actuator's health, spring-tx) present and absent, and Spring's
 * exceptions for a real conflict and a really busy lock. Every esrel object that is built sends the node requests,
 * so none of this can run without one.
 */
@EsrelTest
class EsrelAutoConfigurationIT {

    @Cluster
    static final EsCluster node = EsCluster.builder().shared().build();

    private static final AutoConfigurations ESREL = AutoConfigurations.of(
            EsrelMetricsAutoConfiguration.class,
            EsrelAutoConfiguration.class,
            EsrelHealthAutoConfiguration.class,
            EsrelShedLockAutoConfiguration.class);

    /** A counter document. */
    record Counter(String name, long value) {}

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.CLIENT)
                .withConfiguration(ESREL)
                .withPropertyValues("spring.elasticsearch.uris=" + node.httpUri());
    }

    @BeforeAll
    static void indices() throws IOException {
        ElasticsearchClient es = node.client();
        for (String index : List.of("boot-fs", "boot-counters")) {
            if (!es.indices().exists(e -> e.index(index)).value()) {
                es.indices().create(c -> c.index(index));
            }
        }
    }

    /** An application as a user writes one: auto-configuration only, found through AutoConfiguration.imports. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {}

    /**
     * The whole of Boot's auto-configuration on this module's class path (Boot's client, metrics and health among it),
     * in the order Boot sorts it: esrel's classes are found through {@code AutoConfiguration.imports}, run after Boot's
     * client and metrics, and their beans use Boot's client and registry.
     */
    @Test
    void shouldAutoConfigureEsrelInABootApplication() throws IOException {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .properties("spring.elasticsearch.uris=" + node.httpUri(), "esrel.locks.namespace=boot-fs")
                .run()) {
            ElasticsearchClient boot = context.getBean(ElasticsearchClient.class);
            assertThat(context.getBeanFactory()
                            .getBeanDefinition(context.getBeanNamesForType(ElasticsearchClient.class)[0])
                            .getFactoryBeanName())
                    .startsWith("org.springframework.boot.");
            assertThat(context.getBeansOfType(Occ.class)).containsOnlyKeys("esrelOcc");
            assertThat(context.getBeansOfType(TreeLocks.class)).containsOnlyKeys("esrelTreeLocks");
            assertThat(context.getBeansOfType(EsrelMicrometer.class)).containsOnlyKeys("esrelMicrometer");
            assertThat(context.getBean(ExceptionTranslator.class)).isInstanceOf(SpringExceptionTranslator.class);
            assertThat(context.containsBean("esrelHealthIndicator")).isTrue();
            assertThat(BootLine.esrelHealth(context).status()).isEqualTo("UP");
            Outcome<Counter> done = context.getBean(Occ.class)
                    .upsert("boot-counters", "application", Counter.class, () -> new Counter("a", 0), c -> c);
            assertThat(done.status()).isIn(Outcome.Status.CREATED, Outcome.Status.NOOP);
            assertThat(boot.exists(e -> e.index("boot-counters").id("application"))
                            .value())
                    .isTrue();
        }
    }

    @Test
    void shouldBuildEsrelsEntryPointsOnTheApplicationsClientWithTheCoresDefaults() {
        runner().run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(Occ.class)
                    .hasSingleBean(ExternalVersions.class)
                    .hasSingleBean(RoutingClient.class)
                    .hasSingleBean(JoinDefaults.class)
                    .hasSingleBean(PropagationDefaults.class)
                    .doesNotHaveBean(TreeLocks.class); // no esrel.locks.namespace
            assertThat(context.getBean(ExceptionTranslator.class)).isInstanceOf(SpringExceptionTranslator.class);
            assertThat(context.getBean(Occ.class).toString())
                    .isEqualTo(Occ.of(b -> b.client(node.client())).toString());
            assertThat(context.getBean(RoutingClient.class).toString()).contains("source=AUTO");
            Join join = Join.of(context.getBean(JoinDefaults.class)::applyTo);
            assertThat(join.maxParents()).isEqualTo(Join.DEFAULT_MAX_PARENTS);
            assertThat(join.pageSize()).isEqualTo(Join.DEFAULT_PAGE_SIZE);

            Occ occ = context.getBean(Occ.class);
            Outcome<Counter> created =
                    occ.upsert("boot-counters", "defaults", Counter.class, () -> new Counter("c", 0), c -> c);
            assertThat(created.status()).isEqualTo(Outcome.Status.CREATED);
        });
    }

    @Test
    void shouldMapTheEsrelPropertiesOntoTheBuiltObjects() {
        runner().withPropertyValues(
                        "esrel.occ.max-attempts=7",
                        "esrel.occ.deadline=3s",
                        "esrel.occ.combine-writes=false",
                        "esrel.occ.routing-check=false",
                        "esrel.occ.write-log=_esrel_writes",
                        "esrel.locks.namespace=boot-fs",
                        "esrel.locks.provider=documents",
                        "esrel.locks.ttl=20s",
                        "esrel.locks.owner=app-1",
                        "esrel.locks.lock-index=boot-app-locks",
                        "esrel.routing.source=cluster-state",
                        "esrel.join.max-parents=500",
                        "esrel.join.page-size=100",
                        "esrel.propagation.bulks-in-flight=2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Occ.class).toString())
                            .contains(
                                    "maxAttempts=7",
                                    "deadline=PT3S",
                                    "routingCheck=false",
                                    "combineWrites=false",
                                    "writeLog=_esrel_writes");
                    // A conditional write keeps the log beside the document's fields, hidden from the class.
                    Occ occ = context.getBean(Occ.class);
                    occ.upsert("boot-counters", "logged", Counter.class, () -> new Counter("c", 0), c -> c);
                    Outcome<Counter> logged = occ.update(
                            "boot-counters", "logged", Counter.class, c -> new Counter(c.name(), c.value() + 1));
                    assertThat(logged.status()).isEqualTo(Outcome.Status.UPDATED);
                    assertThat(logged.value().value()).isEqualTo(1);
                    assertThat(node.client()
                                    .get(g -> g.index("boot-counters").id("logged"), JsonData.class)
                                    .source()
                                    .toJson()
                                    .asJsonObject())
                            .containsKey("_esrel_writes");
                    TreeLocks locks = context.getBean(TreeLocks.class);
                    assertThat(locks.backend()).isEqualTo(TreeLocks.Backend.DOCUMENTS);
                    assertThat(locks.index()).isEqualTo("boot-fs");
                    assertThat(locks.toString()).contains("lockIndex=boot-app-locks", "owner=app-1", "ttl=PT20S");
                    assertThat(context.getBean(RoutingClient.class).toString()).contains("source=CLUSTER_STATE");
                    Join join = context.getBean(JoinDefaults.class).builder().build();
                    assertThat(join.maxParents()).isEqualTo(500);
                    assertThat(join.pageSize()).isEqualTo(100);
                    assertThat(context.getBean(PropagationDefaults.class).toString())
                            .contains("bulksInFlight=2");

                    // The documents provider really serves the namespace, from the configured lock index.
                    try (TreeLock lock = locks.acquire("/a", LockMode.EXCLUSIVE).orThrow()) {
                        assertThat(lock.token()).isPositive();
                    }
                    assertThat(node.client()
                                    .indices()
                                    .exists(e -> e.index("boot-app-locks"))
                                    .value())
                            .isTrue();
                });
    }

    @Test
    void shouldBackOffForTheApplicationsOwnBeansAndApplyCustomizersToItsOwn() {
        Occ own = Occ.of(b -> b.client(node.client()).combineWrites(false));
        runner().withPropertyValues("esrel.locks.namespace=boot-fs")
                .withBean(Occ.class, () -> own)
                .withBean(TreeLocksCustomizer.class, () -> b -> b.owner("customized"))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(Occ.class);
                    assertThat(context.getBean(Occ.class)).isSameAs(own);
                    assertThat(context.getBean(TreeLocks.class).toString()).contains("owner=customized");
                });

        try (TreeLocks ownLocks = TreeLocks.of(b -> b.client(node.client()).index("boot-fs"))) {
            runner().withPropertyValues("esrel.locks.namespace=boot-fs")
                    .withBean(TreeLocks.class, () -> ownLocks)
                    .run(context -> assertThat(context.getBean(TreeLocks.class)).isSameAs(ownLocks));
        }
    }

    @Test
    void shouldCloseTheTreeLocksBeanWithTheContext() {
        TreeLocks[] seen = new TreeLocks[1];
        runner().withPropertyValues("esrel.locks.namespace=boot-fs").run(context -> {
            seen[0] = context.getBean(TreeLocks.class);
            assertThat(seen[0].backend()).isEqualTo(TreeLocks.Backend.PLUGIN); // auto, and the node has the plugin
        });
        assertThatThrownBy(() -> seen[0].acquire("/closed", LockMode.SHARED)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldRegisterEsrelMicrometerWhenTheApplicationHasAMeterRegistry() {
        runner().withConfiguration(BootLine.METRICS).run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(MeterRegistry.class)
                    .hasSingleBean(EsrelMicrometer.class);
            assertThat(context.getBeansOfType(OccCustomizer.class)).containsKey("esrelMicrometerOccCustomizer");
            assertThat(context.getBeansOfType(PropagatorCustomizer.class))
                    .containsKey("esrelMicrometerPropagatorCustomizer");
            Outcome<Counter> done = context.getBean(Occ.class)
                    .upsert("boot-counters", "metered", Counter.class, () -> new Counter("m", 0), c -> c);
            assertThat(done.status()).isIn(Outcome.Status.CREATED, Outcome.Status.NOOP);
        });
    }

    @Test
    void shouldWorkWithoutMicrometer() {
        runner().withConfiguration(BootLine.METRICS)
                .withClassLoader(new FilteredClassLoader("io.micrometer", "io.github.esrel.micrometer"))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(EsrelMicrometer.class);
                    assertThat(context.getBeansOfType(OccCustomizer.class)).isEmpty();
                    Outcome<Counter> done = context.getBean(Occ.class)
                            .upsert("boot-counters", "plain", Counter.class, () -> new Counter("p", 0), c -> c);
                    assertThat(done.status()).isIn(Outcome.Status.CREATED, Outcome.Status.NOOP);
                });
    }

    @Test
    void shouldReportThePluginAndTheLockProviderInTheEsrelHealth() {
        runner().withPropertyValues("esrel.locks.namespace=boot-fs").run(context -> {
            // One lock first, so that the plugin has created its lock index.
            context.getBean(TreeLocks.class)
                    .acquire("/health", LockMode.EXCLUSIVE)
                    .orThrow()
                    .close();
            BootLine.Report health = BootLine.esrelHealth(context);
            System.out.println("esrel health: " + health);
            assertThat(health.status()).isEqualTo("UP");
            @SuppressWarnings("unchecked")
            Map<String, Object> plugin = (Map<String, Object>) health.details().get("plugin");
            assertThat(plugin).containsEntry("nodes", 1).containsEntry("withPlugin", 1);
            assertThat((List<?>) plugin.get("missing")).isEmpty();
            assertThat(plugin.get("version")).isInstanceOf(String.class);
            @SuppressWarnings("unchecked")
            Map<String, Object> locks = (Map<String, Object>) health.details().get("locks");
            assertThat(locks).containsEntry("provider", "PLUGIN").containsEntry("namespace", "boot-fs");
            assertThat(locks)
                    .containsEntry("lockIndex", ".esrel-treelocks-1")
                    .containsEntry("lockIndexStatus", "green");
        });
    }

    @Test
    void shouldHaveNoHealthContributorWithoutTheActuator() {
        runner().withClassLoader(new FilteredClassLoader(BootLine.HEALTH_PACKAGE))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean("esrelHealthIndicator");
                    assertThat(context).hasSingleBean(Occ.class);
                });
    }

    @Test
    void shouldHaveNoTranslatorWithoutSpringTx() {
        runner().withClassLoader(new FilteredClassLoader("org.springframework.dao"))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(ExceptionTranslator.class);
                    assertThat(context).hasSingleBean(Occ.class);
                });
    }

    /**
     * A stale {@code replace} (another writer changed the document after it was read) gives up with a 409: Spring's
     * exception, carrying esrel's outcome.
     */
    @Test
    void shouldSurfaceAnOccGiveUpAsOptimisticLockingFailureException() {
        runner().withPropertyValues("esrel.occ.max-attempts=1").run(context -> {
            Occ occ = context.getBean(Occ.class);
            occ.upsert("boot-counters", "stale", Counter.class, () -> new Counter("s", 0), c -> c);
            Versioned<Counter> seen =
                    occ.get("boot-counters", "stale", Counter.class).orElseThrow();
            node.client().index(i -> i.index("boot-counters").id("stale").document(new Counter("s", 99)));

            assertThatThrownBy(() -> occ.replace(seen, new Counter("s", 1)))
                    .isInstanceOf(OptimisticLockingFailureException.class)
                    .isInstanceOfSatisfying(
                            EsrelOptimisticLockingFailureException.class,
                            e -> assertThat(e.outcome().status()).isEqualTo(Outcome.Status.CONFLICT));
        });
    }

    /** A lock held by another request of the namespace, and {@code orThrow()} on the busy result: Spring's exception. */
    @Test
    void shouldSurfaceABusyLockAsCannotAcquireLockException() {
        runner().withPropertyValues("esrel.locks.namespace=boot-fs").run(context -> {
            TreeLocks locks = context.getBean(TreeLocks.class);
            try (TreeLock held = locks.acquire("/busy", LockMode.EXCLUSIVE).orThrow()) {
                AcquireResult<TreeLock> busy = locks.acquire("/busy", LockMode.EXCLUSIVE);
                assertThatThrownBy(busy::orThrow)
                        .isInstanceOf(CannotAcquireLockException.class)
                        .isInstanceOfSatisfying(
                                EsrelCannotAcquireLockException.class,
                                e -> assertThat(e.conflicts()).isNotEmpty());
                assertThat(held.token()).isPositive();
            }
        });
    }

    /**
     * With ShedLock on the class path and a {@code TreeLocks} bean, ShedLock's provider is esrel's: a lock taken
     * through it is a tree lock under {@code esrel.shedlock.prefix}, fenced, and a second instance's provider
     * (another owner) cannot take it. Without the namespace (no {@code TreeLocks}), with the application's own
     * provider, or with {@code esrel.shedlock.enabled=false}, there is none of esrel's.
     */
    @Test
    void shouldRegisterTheShedLockProviderOnTheTreeLocksBean() {
        runner().withPropertyValues("esrel.locks.namespace=boot-fs", "esrel.shedlock.prefix=/jobs")
                .run(context -> {
                    LockProvider provider = context.getBean(LockProvider.class);
                    assertThat(provider).isInstanceOf(EsrelLockProvider.class);
                    LockConfiguration job = new LockConfiguration(
                            Instant.now(), "nightly/report", Duration.ofSeconds(30), Duration.ZERO);
                    SimpleLock lock = provider.lock(job).orElseThrow();
                    try (TreeLocks other = TreeLocks.of(
                            b -> b.client(node.client()).index("boot-fs").owner("instance-b"))) {
                        assertThat(EsrelLockProvider.builder()
                                        .treeLocks(other)
                                        .prefix("/jobs")
                                        .build()
                                        .lock(job))
                                .as("the second instance's provider")
                                .isEmpty();
                        assertThat(other.list(TreePath.of("/jobs")))
                                .singleElement()
                                .satisfies(info -> assertThat(info.path())
                                        .isEqualTo(((EsrelLockProvider) provider).path("nightly/report"))
                                        .hasToString(
                                                ((EsrelSimpleLock) lock).path().toString()));
                    }
                    assertThat(((EsrelSimpleLock) lock).token()).isPositive();
                    lock.unlock();
                    assertThat(context.getBean(TreeLocks.class).list(TreePath.of("/jobs")))
                            .isEmpty();
                });
        runner().run(context -> assertThat(context).doesNotHaveBean(LockProvider.class));
        runner().withPropertyValues("esrel.locks.namespace=boot-fs", "esrel.shedlock.enabled=false")
                .run(context ->
                        assertThat(context).hasSingleBean(TreeLocks.class).doesNotHaveBean(LockProvider.class));
        LockProvider own = configuration -> Optional.empty();
        runner().withPropertyValues("esrel.locks.namespace=boot-fs")
                .withBean(LockProvider.class, () -> own)
                .run(context -> assertThat(context.getBean(LockProvider.class)).isSameAs(own));
        runner().withPropertyValues("esrel.locks.namespace=boot-fs")
                .withClassLoader(new FilteredClassLoader("net.javacrumbs.shedlock"))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(TreeLocks.class));
    }
}
