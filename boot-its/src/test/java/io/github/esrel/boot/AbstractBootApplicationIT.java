package io.github.esrel.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.mapping.TypeMapping;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.transport.ElasticsearchTransport;
import co.elastic.clients.transport.Version;
import io.github.esrel.boot.quickstart.Votes;
import io.github.esrel.denorm.PropagationResult;
import io.github.esrel.denorm.Propagator;
import io.github.esrel.denorm.Relation;
import io.github.esrel.doc.DocRef;
import io.github.esrel.join.Join;
import io.github.esrel.join.JoinQuery;
import io.github.esrel.join.JoinResult;
import io.github.esrel.join.Pair;
import io.github.esrel.join.ParentWithChildren;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockInfo;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.micrometer.EsrelMicrometer;
import io.github.esrel.occ.ExternalVersions;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccMetrics;
import io.github.esrel.occ.Outcome;
import io.github.esrel.occ.Versioned;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.routing.RoutingCalculator;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.routing.RoutingResult;
import io.github.esrel.spring.boot.autoconfigure.PropagationDefaults;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.SpringVersion;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * esrel in a real Spring Boot application context through its starter (issues 19 and 20): OCC, tree locks, routing, a
 * join and a propagation, each on the {@link ElasticsearchClient} Spring Boot's auto-configuration builds and the beans
 * esrel's starter builds on it, against a real node with the esrel plugin; the meters the starter registers agree with
 * the outcomes, its health contributor reports the plugin and the lock index, and give-ups surface as Spring's
 * exceptions. Nothing here builds a client: the application declares none, and {@code spring.elasticsearch.uris}
 * points Boot at the node testenv started (without security, so no credentials or TLS). One subclass per Boot line says what that line
 * must resolve to (Boot, elasticsearch-java, the transport, the JSON mapper), and the first test checks it, so a
 * dependency change that moves the application onto another client or mapper fails here instead of passing
 * unnoticed.
 *
 * <p>After the class, testenv's extension stops the node (on Boot 3.5's JUnit 5.12 too) and {@link DirtiesContext}
 * closes the application context (and with it Boot's client), so that nothing outlives the class.
 */
@EsrelTest
@SpringBootTest(
        classes = EsrelBootApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"esrel.locks.owner=instance-a"})
// The README's quick start's application.properties (application-quickstart.properties): esrel.locks.namespace=files.
@ActiveProfiles("quickstart")
@DirtiesContext
abstract class AbstractBootApplicationIT {

    private static final int WRITERS = 16;
    private static final int INCREMENTS_EACH = 5;

    /** 16 writers of one counter, each on its own, need dozens of attempts now and then. */
    private static final RetryPolicy CONTENDED = RetryPolicy.of(b -> b.maxAttempts(1000));

    @Cluster
    static final EsCluster node = EsCluster.builder().shared().build();

    @DynamicPropertySource
    static void elasticsearch(DynamicPropertyRegistry registry) {
        registry.add("spring.elasticsearch.uris", () -> {
            node.start(); // idempotent: testenv's extension started it before the context loads
            return node.httpUris().stream().map(URI::toString).collect(Collectors.joining(","));
        });
    }

    /** What the application must run on: this Boot line's client, transport and mapper. */
    record Expected(
            String bootLine,
            String clientLine,
            Class<? extends ElasticsearchTransport> transport,
            Class<? extends JsonpMapper> mapper,
            String json) {}

    /**
     * What this Boot line must resolve to.
     *
     * @return the expected versions and types
     */
    protected abstract Expected expected();

    /** The {@code esrel} health as {@code /actuator/health/esrel} shows it. */
    record HealthView(String status, Map<String, Object> details) {}

    /**
     * The {@code esrel} health, read through this Boot line's health endpoint (its classes moved in Boot 4).
     *
     * @return the status and details
     */
    protected abstract HealthView esrelHealth();

    @Autowired
    ConfigurableApplicationContext context;

    /** Boot's client: the only one in the context. */
    @Autowired
    ElasticsearchClient es;

    @Autowired
    RoutingClient routing;

    /** The starter's beans. */
    @Autowired
    Occ occ;

    @Autowired
    TreeLocks locks;

    @Autowired
    ExternalVersions externalVersions;

    @Autowired
    Votes votes;

    @Autowired
    EsrelMicrometer micrometer;

    @Autowired
    PropagationDefaults propagationDefaults;

    @Autowired
    MeterRegistry meters;

    @Autowired
    Join join;

    // --- what the application runs on ---------------------------------------------------------------------------

    /** The README's Spring Boot quick start: its service and its properties in a real application. */
    @Test
    void shouldCountEveryVoteOfTheQuickStartsService() throws Exception {
        assertThat(context.getEnvironment().getProperty("esrel.locks.namespace"))
                .as("from the quick start's properties")
                .isEqualTo("files");
        ExecutorService voters = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 80; i++) {
                done.add(voters.submit(() -> votes.vote("aurora")));
            }
            for (Future<?> vote : done) {
                vote.get(120, TimeUnit.SECONDS);
            }
        } finally {
            voters.shutdownNow();
        }
        assertThat(occ.get("designs", "aurora", Votes.Design.class)
                        .orElseThrow()
                        .value()
                        .votes())
                .isEqualTo(80);
    }

    @Test
    void shouldRunOnTheClientBootConfiguredWithTheMapperBootPicked() throws IOException {
        Expected expected = expected();
        System.out.printf(
                "Spring Boot %s, Spring Framework %s, Java %s: elasticsearch-java %s, %s with %s (%s),"
                        + " jackson-databind %s (esrel's); node %s%n",
                SpringBootVersion.getVersion(),
                SpringVersion.getVersion(),
                System.getProperty("java.version"),
                Version.VERSION,
                es._transport().getClass().getSimpleName(),
                es._jsonpMapper().getClass().getSimpleName(),
                expected.json(),
                com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION,
                node.version());

        assertThat(SpringBootVersion.getVersion()).startsWith(expected.bootLine());
        assertThat(Version.VERSION.toString()).startsWith(expected.clientLine());
        assertThat(es._transport()).isExactlyInstanceOf(expected.transport());
        assertThat(es._jsonpMapper()).isExactlyInstanceOf(expected.mapper());

        // Boot's own bean: one client in the context, made by Boot's auto-configuration, on the node's address.
        String[] clients = context.getBeanNamesForType(ElasticsearchClient.class);
        assertThat(clients).hasSize(1);
        assertThat(context.getBean(clients[0])).isSameAs(es);
        BeanDefinition definition = context.getBeanFactory().getBeanDefinition(clients[0]);
        assertThat(definition.getFactoryBeanName())
                .as("the configuration class that made the client")
                .startsWith("org.springframework.boot.")
                .contains("ElasticsearchClientConfigurations");
        assertThat(context.getEnvironment().getProperty("spring.elasticsearch.uris"))
                .isEqualTo(node.httpUri().toString());
        assertThat(es.cluster().health().numberOfNodes()).isEqualTo(1);

        // esrel's beans: the starter's, on that client, nothing declared by the application but its join.
        for (Class<?> type : List.of(
                Occ.class, TreeLocks.class, ExternalVersions.class, RoutingClient.class, EsrelMicrometer.class)) {
            String[] names = context.getBeanNamesForType(type);
            assertThat(names).as("%s beans", type.getSimpleName()).hasSize(1);
            assertThat(context.getBeanFactory().getBeanDefinition(names[0]).getFactoryBeanName())
                    .as("the configuration class that made the %s", type.getSimpleName())
                    .startsWith("io.github.esrel.spring.boot.autoconfigure.");
        }
        assertThat(locks.index()).isEqualTo("files");
        assertThat(locks.backend()).isEqualTo(TreeLocks.Backend.PLUGIN);
    }

    @Test
    void shouldReportThePluginOnEveryNodeAndTheLockProviderAsHealth() throws IOException {
        createIndex("health-check", 1, m -> m);
        HealthView health = esrelHealth();
        System.out.printf("esrel health: %s %s%n", health.status(), health.details());
        assertThat(health.status()).isEqualTo("UP");
        assertThat(health.details()).containsKeys("plugin", "locks");
        assertThat(health.details().get("plugin").toString()).contains("nodes=1", "withPlugin=1", "missing=[]");
        assertThat(health.details().get("locks").toString()).contains("provider=PLUGIN", "namespace=files");
    }

    // --- optimistic concurrency -----------------------------------------------------------------------------------

    /** A counter document. */
    record Counter(String name, long value) {
        Counter increment() {
            return new Counter(name, value + 1);
        }
    }

    /** An order line. */
    record Line(String sku, int quantity) {}

    /** An order with nested values, a list and a map: a typed document for the round trip. */
    record Order(String customer, String status, List<Line> lines, Map<String, String> tags) {
        Order withStatus(String newStatus) {
            return new Order(customer, newStatus, lines, tags);
        }
    }

    @Test
    void shouldCountEveryIncrementOf16ConcurrentWritersWithOcc() throws Exception {
        createIndex("counters", 1, m -> m);
        es.index(i -> i.index("counters").id("votes").document(new Counter("votes", 0)));

        // Each writer retries on its own (no write combining): the writers conflict, and every 409 comes back through
        // Boot's transport to esrel's retry loop.
        OccMetrics alone = new OccMetrics();
        Occ onTheirOwn =
                Occ.of(b -> b.client(es).retryPolicy(CONTENDED).listener(alone).combineWrites(false));
        long t0 = System.nanoTime();
        runConcurrently(WRITERS, w -> {
            for (int i = 0; i < INCREMENTS_EACH; i++) {
                assertThat(onTheirOwn
                                .update("counters", "votes", Counter.class, Counter::increment)
                                .status())
                        .isEqualTo(Outcome.Status.UPDATED);
            }
        });
        OccMetrics.Snapshot m = alone.snapshot();
        System.out.printf(
                "OCC, %d writers on their own: %d ms, %s%n", WRITERS, (System.nanoTime() - t0) / 1_000_000, m);
        assertThat(es.get(g -> g.index("counters").id("votes"), Counter.class)
                        .source()
                        .value())
                .isEqualTo(WRITERS * INCREMENTS_EACH);
        assertThat(m.written()).isEqualTo(WRITERS * INCREMENTS_EACH);
        assertThat(m.gaveUp()).isZero();
        assertThat(m.conflicts())
                .as("16 writers of one document, each on its own, conflict")
                .isPositive();

        // The starter's Occ, shared by the writers as an application holds it: their upserts of a new document are
        // combined, and the meters the starter attached count every call, attempt, conflict and combined write.
        List<Outcome<Counter>> outcomes = java.util.Collections.synchronizedList(new ArrayList<>());
        long t1 = System.nanoTime();
        runConcurrently(WRITERS, w -> {
            for (int i = 0; i < INCREMENTS_EACH; i++) {
                outcomes.add(occ.upsert(
                        "counters", "shared", Counter.class, () -> new Counter("shared", 0), Counter::increment));
            }
        });
        assertThat(occ.get("counters", "shared", Counter.class).orElseThrow().value())
                .isEqualTo(new Counter("shared", WRITERS * INCREMENTS_EACH));
        Map<Outcome.Status, Long> byStatus =
                outcomes.stream().collect(Collectors.groupingBy(Outcome::status, Collectors.counting()));
        assertThat(byStatus).containsEntry(Outcome.Status.CREATED, 1L);
        assertThat(byStatus).doesNotContainKey(Outcome.Status.CONFLICT);

        byStatus.forEach((status, n) -> assertThat(meters.find("esrel.occ.calls")
                        .tags(
                                "index",
                                "counters",
                                "operation",
                                "upsert",
                                "outcome",
                                status.name().toLowerCase())
                        .timer())
                .as(
                        "esrel.occ.calls, outcome %s, among %s",
                        status,
                        meters.find("esrel.occ.calls").timers().stream()
                                .map(t -> t.getId().getTags() + "=" + t.count())
                                .toList())
                .isNotNull()
                .satisfies(t -> assertThat(t.count()).isEqualTo(n)));
        DistributionSummary attempts = meters.get("esrel.occ.attempts")
                .tags("index", "counters", "operation", "upsert")
                .summary();
        assertThat(attempts.count()).isEqualTo(WRITERS * INCREMENTS_EACH);
        assertThat((long) attempts.totalAmount())
                .isEqualTo(outcomes.stream().mapToLong(Outcome::attempts).sum());
        double conflicts = meters.find("esrel.occ.conflicts").tags("index", "counters").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
        assertThat((long) conflicts)
                .as("conflicts met by the combined upserts (the writers on their own had no meters)")
                .isEqualTo(outcomes.stream().mapToLong(Outcome::conflicts).sum());
        // A combined write stored several callers' changes: their outcomes name its seq_no.
        Map<Long, Long> callsPerWrite =
                outcomes.stream().collect(Collectors.groupingBy(Outcome::seqNo, Collectors.counting()));
        long landed = callsPerWrite.values().stream().filter(n -> n > 1).count();
        long carried = callsPerWrite.values().stream()
                .filter(n -> n > 1)
                .mapToLong(Long::longValue)
                .sum();
        DistributionSummary combined = meters.get("esrel.occ.combined.writes")
                .tags("index", "counters")
                .summary();
        System.out.printf(
                "OCC, %d writers on the starter's Occ: %d ms, %s; %d combined writes landed carrying %d calls;"
                        + " meters: %d combined writes carrying %.0f calls, %.0f conflicts%n",
                WRITERS,
                (System.nanoTime() - t1) / 1_000_000,
                byStatus,
                landed,
                carried,
                combined.count(),
                combined.totalAmount(),
                conflicts);
        assertThat(landed)
                .as("16 writers of one document on one Occ are combined")
                .isPositive();
        assertThat(combined.count()).isGreaterThanOrEqualTo(landed);
        assertThat((long) combined.totalAmount()).isGreaterThanOrEqualTo(carried);
    }

    @Test
    void shouldSurfaceAGiveUpAsSpringsOptimisticLockingFailureException() throws IOException {
        createIndex("accounts", 1, m -> m);
        occ.upsert("accounts", "a-1", Counter.class, () -> new Counter("a-1", 0), c -> c);
        Versioned<Counter> seen = occ.get("accounts", "a-1", Counter.class).orElseThrow();
        occ.update("accounts", "a-1", Counter.class, Counter::increment);

        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> occ.replace(seen, seen.value().increment()))
                .isInstanceOf(OptimisticLockingFailureException.class)
                .hasMessageContaining("[accounts][a-1]");
        assertThat(meters.get("esrel.occ.giveups")
                        .tags("index", "accounts", "operation", "replace")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void shouldRoundTripATypedRoutedDocumentThroughOcc() throws IOException {
        createIndex("orders", 3, m -> m);
        DocRef ref = DocRef.of("orders", "o-1").withRouting("tenant-7");
        Order placed = new Order(
                "ada", "placed", List.of(new Line("sku-1", 2), new Line("sku-2", 1)), Map.of("channel", "web"));

        Outcome<Order> created = occ.upsert(ref, Order.class, () -> placed, o -> o);
        assertThat(created.status()).isEqualTo(Outcome.Status.CREATED);
        assertThat(created.value()).isEqualTo(placed);

        Versioned<Order> read = occ.get(ref, Order.class).orElseThrow();
        assertThat(read.value()).isEqualTo(placed);
        assertThat(read.seqNo()).isEqualTo(created.seqNo());

        Outcome<Order> paid = occ.update(ref, Order.class, o -> o.withStatus("paid"));
        assertThat(paid.status()).isEqualTo(Outcome.Status.UPDATED);
        assertThat(paid.value()).isEqualTo(placed.withStatus("paid"));
        assertThat(occ.update(ref, Order.class, o -> o.withStatus("paid")).status())
                .as("the same value again writes nothing")
                .isEqualTo(Outcome.Status.NOOP);

        // Boot's client reads what esrel wrote, under the same routing.
        assertThat(es.get(g -> g.index("orders").id("o-1").routing("tenant-7"), Order.class)
                        .source())
                .isEqualTo(placed.withStatus("paid"));
        // A replace based on the version read before the update is refused: no lost update.
        assertThat(occ.tryReplace(read, read.value().withStatus("cancelled")).status())
                .isEqualTo(Outcome.Status.CONFLICT);
    }

    // --- tree locks -------------------------------------------------------------------------------------------------

    @Test
    void shouldAcquireRefuseAndReleaseTreeLocksThroughThePlugin() throws IOException {
        createIndex("files", 1, m -> m);
        // instance-a: the starter's bean (esrel.locks.namespace, esrel.locks.owner); instance-b: another process's.
        TreeLocks a = locks;
        try (TreeLocks b = TreeLocks.of(x -> x.client(es).index("files").owner("instance-b"))) {
            assertThat(a.backend()).isEqualTo(TreeLocks.Backend.PLUGIN);

            TreeLock directory = a.acquire("/photos/2026", LockMode.EXCLUSIVE).orThrow();
            AcquireResult<TreeLock> below = b.acquire("/photos/2026/jan", LockMode.SHARED);
            assertThat(below.acquired())
                    .as("below an exclusively locked directory")
                    .isFalse();
            assertThat(below.conflicts()).anySatisfy(c -> {
                assertThat(c.path()).isEqualTo("/photos/2026");
                assertThat(c.mode()).isEqualTo(LockMode.EXCLUSIVE);
                assertThat(c.owner()).isEqualTo("instance-a");
            });

            try (TreeLock sibling =
                    b.acquire("/photos/2025", LockMode.EXCLUSIVE).orThrow()) {
                assertThat(sibling.owner()).isEqualTo("instance-b");
                assertThat(a.list())
                        .extracting(
                                l -> l.path().value(),
                                LockInfo::mode,
                                l -> l.holders().get(0).owner())
                        .containsExactlyInAnyOrder(
                                tuple("/photos/2026", LockMode.EXCLUSIVE, "instance-a"),
                                tuple("/photos/2025", LockMode.EXCLUSIVE, "instance-b"));
            }

            // The starter's provider, busy: Spring's exception, with esrel's conflicts as its cause.
            try (TreeLock held = b.acquire("/archive", LockMode.SHARED).orThrow()) {
                org.assertj.core.api.Assertions.assertThatThrownBy(
                                () -> a.acquire("/archive", LockMode.EXCLUSIVE, Duration.ofMillis(200))
                                        .orThrow())
                        .isInstanceOf(CannotAcquireLockException.class)
                        .hasMessageContaining("/archive");
                assertThat(held.isHeld()).isTrue();
            }

            long token = directory.token();
            assertThat(directory.release()).isTrue();
            try (TreeLock again = b.acquire("/photos/2026", LockMode.EXCLUSIVE, Duration.ofSeconds(10))
                    .orThrow()) {
                assertThat(again.token()).as("fencing token").isGreaterThan(token);
            }
            assertThat(a.list()).as("nothing left held").isEmpty();
        }
        // The starter's provider made two acquisitions: /photos/2026 granted, /archive busy.
        assertThat(meters.get("esrel.lock.acquire")
                        .tags("index", "files", "mode", "exclusive", "outcome", "granted")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(meters.get("esrel.lock.acquire")
                        .tags("index", "files", "mode", "exclusive", "outcome", "busy")
                        .timer()
                        .count())
                .isEqualTo(1);
    }

    // --- propagation ----------------------------------------------------------------------------------------------

    /** A post carrying a copy of its author's name. */
    record Author(String id, String name) {}

    /** A post. */
    record Article(String title, Author user) {}

    @Test
    void shouldPropagateARenameToEveryChildWithTheStartersDefaultsAndMeters() throws IOException {
        createIndex("authors", 1, m -> m);
        createIndex(
                "articles",
                2,
                m -> m.properties(
                        "user",
                        p -> p.object(o -> o.properties("id", i -> i.keyword(k -> k))
                                .properties("name", n -> n.keyword(k -> k)))));
        index("authors", Map.of("a1", Map.of("name", "Ada"), "a2", Map.of("name", "Bob")));
        Map<String, Article> articles = new LinkedHashMap<>();
        for (int i = 0; i < 150; i++) {
            String author = i % 3 == 0 ? "a2" : "a1";
            articles.put("x" + i, new Article("article " + i, new Author(author, author.equals("a1") ? "Ada" : "Bob")));
        }
        index("articles", articles);
        es.index(i -> i.index("authors")
                .id("a1")
                .document(Map.of("name", "Ada Lovelace"))
                .refresh(Refresh.True));

        Relation author = Relation.of(r -> r.name("article-author")
                .parentIndex("authors")
                .childIndex("articles")
                .parentIdField("user.id")
                .copy("name", "user.name"));
        Propagator propagator = Propagator.of(
                p -> propagationDefaults.applyTo(p).relation(author).batchSize(40));
        PropagationResult result = propagator.propagate("a1");

        long adas = articles.values().stream()
                .filter(a -> a.user().id().equals("a1"))
                .count();
        assertThat(result.complete()).as("%s", result).isTrue();
        assertThat(result.counts().written()).isEqualTo(adas);
        es.indices().refresh(r -> r.index("articles"));
        assertThat(es.count(c -> c.index("articles")
                                .query(q -> q.term(t -> t.field("user.name").value("Ada Lovelace"))))
                        .count())
                .isEqualTo(adas);
        // The starter's customizer gave the propagator esrel-micrometer's listener.
        assertThat(meters.get("esrel.propagation.documents")
                        .tag("outcome", "written")
                        .counter()
                        .count())
                .isEqualTo(adas);
        assertThat(meters.get("esrel.propagation.jobs")
                        .tag("state", "completed")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    // --- routing --------------------------------------------------------------------------------------------------

    @Test
    void shouldCalculateTheShardEachDocumentIsReallyOn() throws IOException {
        createIndex("tenants", 5, m -> m);
        List<DocRef> docs = IntStream.range(0, 60)
                .mapToObj(i -> DocRef.id("o-" + i).withRouting(i % 3 == 0 ? null : "tenant-" + (i % 7)))
                .toList();
        BulkRequest.Builder bulk = new BulkRequest.Builder().refresh(Refresh.True);
        for (DocRef d : docs) {
            bulk.operations(op -> op.index(
                    i -> i.index("tenants").id(d.id()).routing(d.routing()).document(Map.of("id", d.id()))));
        }
        BulkResponse response = es.bulk(bulk.build());
        assertThat(response.errors()).isFalse();

        Map<DocRef, Integer> reality = RealShards.of(es, "tenants", 5);
        assertThat(reality).hasSize(docs.size());
        RoutingCalculator calculator = routing.calculator("tenants");
        assertThat(calculator.spec().numberOfShards()).isEqualTo(5);
        RoutingResult server = routing.calculate("tenants", docs);
        assertThat(server.computedByServer()).as("the plugin computed it").isTrue();
        for (int i = 0; i < docs.size(); i++) {
            DocRef d = docs.get(i);
            int real = reality.get(d);
            assertThat(calculator.shard(d)).as("calculator, %s", d).isEqualTo(real);
            assertThat(server.shard(i)).as("plugin, %s", d).isEqualTo(real);
            if (d.routing() != null) {
                assertThat(calculator.searchShards(d.routing())).contains(real);
            }
        }
    }

    // --- joins ------------------------------------------------------------------------------------------------------

    /** A parent. */
    record User(String name, String country) {}

    /** A child; {@code author} is its user's id. */
    record Post(String title, String author, int likes) {}

    @Test
    void shouldJoinPostsToTheirAuthorsBothWays() throws IOException {
        createIndex(
                "users",
                2,
                m -> m.properties("name", p -> p.keyword(k -> k)).properties("country", p -> p.keyword(k -> k)));
        createIndex(
                "posts",
                3,
                m -> m.properties("title", p -> p.text(t -> t))
                        .properties("author", p -> p.keyword(k -> k))
                        .properties("likes", p -> p.integer(n -> n)));
        Map<String, User> users = new LinkedHashMap<>();
        for (int i = 0; i < 12; i++) {
            users.put("u" + i, new User(String.format("user-%02d", i), i % 3 == 0 ? "NO" : "SE"));
        }
        Map<String, Post> posts = new LinkedHashMap<>();
        for (int j = 0; j < 60; j++) {
            int author = j % 12 == 9 ? 10 : j % 12; // u9, from NO, writes nothing
            posts.put("p" + j, new Post("post " + j, "u" + author, (j * 37) % 100)); // distinct likes
        }
        index("users", users);
        index("posts", posts);

        JoinQuery<User, Post> norwegians = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents("users", q -> q.term(t -> t.field("country").value("NO")))
                        .parentSort(
                                SortOptions.of(s -> s.field(f -> f.field("name").order(SortOrder.Asc))))
                        .children("posts", "author")
                        .childSort(SortOptions.of(
                                s -> s.field(f -> f.field("likes").order(SortOrder.Desc))))
                        .childrenPerParent(3)
                        .parentsPerPage(10));
        Comparator<Post> byLikes = Comparator.comparingInt(Post::likes).reversed();

        // Users from NO, each with its three most liked posts.
        JoinResult<User, Post> r = join.childrenOf(norwegians).orThrow();
        assertThat(r.parents()).extracting(p -> p.parent().id()).containsExactly("u0", "u3", "u6", "u9");
        for (ParentWithChildren<User, Post> p : r.parents()) {
            assertThat(p.parent().value()).isEqualTo(users.get(p.parent().id()));
            List<Post> theirs = posts.values().stream()
                    .filter(x -> x.author().equals(p.parent().id()))
                    .sorted(byLikes)
                    .toList();
            assertThat(p.totalChildren()).isEqualTo(theirs.size());
            assertThat(p.children())
                    .extracting(c -> c.value())
                    .containsExactlyElementsOf(theirs.subList(0, Math.min(3, theirs.size())));
        }

        // The five most liked posts whose author is from NO, each with its author.
        JoinResult<User, Post> top = join.childrenWhereParent(
                        norwegians.toBuilder().childrenPerPage(5).build())
                .orThrow();
        List<Post> expected = posts.values().stream()
                .filter(x -> users.get(x.author()).country().equals("NO"))
                .sorted(byLikes)
                .limit(5)
                .toList();
        assertThat(top.pairs()).extracting(p -> p.child().value()).containsExactlyElementsOf(expected);
        for (Pair<User, Post> p : top.pairs()) {
            assertThat(p.child().value().author()).isEqualTo(p.parent().id());
            assertThat(p.parent().value().country()).isEqualTo("NO");
        }
    }

    // --- helpers ----------------------------------------------------------------------------------------------------

    void createIndex(String index, int shards, Function<TypeMapping.Builder, TypeMapping.Builder> mappings)
            throws IOException {
        es.indices()
                .create(c -> c.index(index)
                        .settings(s -> s.numberOfShards(String.valueOf(shards)).numberOfReplicas("0"))
                        .mappings(m -> mappings.apply(m)));
    }

    private void index(String index, Map<String, ?> docs) throws IOException {
        BulkRequest.Builder bulk = new BulkRequest.Builder().refresh(Refresh.True);
        docs.forEach((id, doc) ->
                bulk.operations(op -> op.index(i -> i.index(index).id(id).document(doc))));
        assertThat(es.bulk(bulk.build()).errors()).isFalse();
    }

    interface Writer {
        void run(int writer) throws Exception;
    }

    /** Runs {@code n} writers released at the same moment, rethrowing the first failure. */
    private static void runConcurrently(int n, Writer writer) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CyclicBarrier start = new CyclicBarrier(n);
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int me = i;
                futures.add(pool.submit((Callable<Void>) () -> {
                    start.await(30, TimeUnit.SECONDS);
                    writer.run(me);
                    return null;
                }));
            }
            for (Future<Void> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
