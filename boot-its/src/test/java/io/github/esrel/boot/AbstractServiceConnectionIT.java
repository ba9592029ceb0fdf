package io.github.esrel.boot;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import io.github.esrel.doc.DocRef;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.routing.RoutingResult;
import io.github.esrel.testenv.EsrelElasticsearchContainer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

/**
 * The application's client through Spring Boot's {@code @ServiceConnection} on esrel's container (issue 30): no
 * {@code spring.elasticsearch.*} property anywhere, Boot's Testcontainers support reads the address from the
 * {@link EsrelElasticsearchContainer}, which is Testcontainers' {@link ElasticsearchContainer} with the plugin, and
 * esrel's starter builds on that client: OCC with concurrent writers, a tree lock through the plugin, the routing
 * calculator against the shard each document landed on. Security is off, as in Boot's own tests of 9.x (Boot talks
 * HTTPS to a container only with an SSL bundle).
 *
 * <p>The image: {@code esrel.containers.image} (the stand-in where no registry can be reached) of {@code
 * esrel.es.version}, the official image by default. Needs Docker: tagged {@code docker}, which the build leaves out
 * unless asked ({@code -Desrel.testenv.excludedGroups=none}).
 */
@Tag("docker")
@Testcontainers
@SpringBootTest(
        classes = EsrelBootApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"esrel.locks.namespace=sc-files", "esrel.locks.owner=instance-a"})
@DirtiesContext
abstract class AbstractServiceConnectionIT {

    // docs/testing.md shows this field.
    // tag::service-connection[]
    @Container
    @ServiceConnection
    static final ElasticsearchContainer elasticsearch = new EsrelElasticsearchContainer(image())
            .withoutSecurity() // Boot talks HTTPS to a container only with an SSL bundle
            .withEnv("ES_JAVA_OPTS", "-Xms512m -Xmx512m")
            .withStartupTimeout(Duration.ofMinutes(5)); // Testcontainers' 60 s is short on a busy machine
    // end::service-connection[]

    /**
     * The type of Boot's {@code ElasticsearchConnectionDetails} on this Boot line (its package moved in Boot 4).
     *
     * @return the connection details interface
     */
    protected abstract Class<?> connectionDetailsType();

    @Autowired
    ConfigurableApplicationContext context;

    @Autowired
    ElasticsearchClient es;

    @Autowired
    Occ occ;

    @Autowired
    TreeLocks locks;

    @Autowired
    RoutingClient routing;

    static DockerImageName image() {
        String repository = System.getProperty("esrel.containers.image", "").trim();
        return DockerImageName.parse(
                        repository.isEmpty()
                                ? EsrelElasticsearchContainer.OFFICIAL_IMAGE.getUnversionedPart()
                                : repository)
                .withTag(System.getProperty("esrel.es.version", "9.5.3"))
                .asCompatibleSubstituteFor(EsrelElasticsearchContainer.OFFICIAL_IMAGE);
    }

    @Test
    void shouldConnectBootsClientToTheContainerThroughServiceConnection() throws IOException {
        assertThat(context.getEnvironment().getProperty("spring.elasticsearch.uris"))
                .as("nothing configures the address but @ServiceConnection")
                .isNull();
        String[] details = context.getBeanNamesForType(connectionDetailsType());
        assertThat(details).hasSize(1);
        assertThat(context.getBean(details[0]).getClass().getName())
                .as("Boot's connection details from a container")
                .contains("ContainerConnectionDetails");
        assertThat(es.cluster().health().numberOfNodes()).isEqualTo(1);
        // The plugin in the container: the starter's TreeLocks found it (esrel.locks.provider: auto).
        assertThat(locks.backend()).isEqualTo(TreeLocks.Backend.PLUGIN);
    }

    /** A counter document. */
    record Counter(long value) {}

    @Test
    void shouldCountEveryIncrementOfConcurrentWritersWithOcc() throws Exception {
        es.indices().create(c -> c.index("sc-counters"));
        int writers = 8;
        int each = 5;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        Outcome<Counter> outcome = occ.upsert(
                                "sc-counters",
                                "votes",
                                Counter.class,
                                () -> new Counter(0),
                                c -> new Counter(c.value() + 1));
                        assertThat(outcome.status()).isIn(Outcome.Status.CREATED, Outcome.Status.UPDATED);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(occ.get("sc-counters", "votes", Counter.class).orElseThrow().value())
                .isEqualTo(new Counter(writers * each));
    }

    @Test
    void shouldLockATreeThroughThePluginInTheContainer() throws IOException {
        es.indices().create(c -> c.index("sc-files"));
        assertThat(locks.backend()).isEqualTo(TreeLocks.Backend.PLUGIN);
        try (TreeLocks other = TreeLocks.of(b -> b.client(es).index("sc-files").owner("instance-b"))) {
            try (TreeLock directory =
                    locks.acquire("/photos", LockMode.EXCLUSIVE).orThrow()) {
                AcquireResult<TreeLock> below = other.acquire("/photos/2026", LockMode.SHARED);
                assertThat(below.acquired()).isFalse();
                assertThat(below.conflicts())
                        .anySatisfy(c -> assertThat(c.owner()).isEqualTo("instance-a"));
                assertThat(directory.isHeld()).isTrue();
            }
            try (TreeLock after = other.acquire("/photos/2026", LockMode.SHARED).orThrow()) {
                assertThat(after.owner()).isEqualTo("instance-b");
            }
        }
    }

    @Test
    void shouldCalculateTheShardEachDocumentIsReallyOn() throws IOException {
        es.indices()
                .create(c -> c.index("sc-tenants")
                        .settings(s -> s.numberOfShards("5").numberOfReplicas("0")));
        List<DocRef> docs = IntStream.range(0, 40)
                .mapToObj(i -> DocRef.id("o-" + i).withRouting(i % 3 == 0 ? null : "tenant-" + (i % 7)))
                .toList();
        BulkRequest.Builder bulk = new BulkRequest.Builder().refresh(Refresh.True);
        for (DocRef d : docs) {
            bulk.operations(op -> op.index(
                    i -> i.index("sc-tenants").id(d.id()).routing(d.routing()).document(Map.of("id", d.id()))));
        }
        assertThat(es.bulk(bulk.build()).errors()).isFalse();

        Map<DocRef, Integer> reality = RealShards.of(es, "sc-tenants", 5);
        RoutingResult server = routing.calculate("sc-tenants", docs);
        assertThat(server.computedByServer()).as("the plugin computed it").isTrue();
        for (int i = 0; i < docs.size(); i++) {
            assertThat(server.shard(i)).as("%s", docs.get(i)).isEqualTo(reality.get(docs.get(i)));
        }
    }
}
