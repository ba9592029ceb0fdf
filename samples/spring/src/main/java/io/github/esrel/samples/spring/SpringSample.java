package io.github.esrel.samples.spring;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.denorm.PropagationResult;
import io.github.esrel.denorm.Propagator;
import io.github.esrel.denorm.Relation;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Versioned;
import io.github.esrel.spring.boot.autoconfigure.PropagationDefaults;
import io.github.esrel.testenv.EsCluster;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.OptimisticLockingFailureException;

/**
 * esrel in a Spring Boot 4.0 application through its starter: the application declares no esrel object and no
 * client. Boot builds the {@link ElasticsearchClient} from {@code spring.elasticsearch.uris} (on its
 * {@code Rest5Client} and Jackson 3 mapper), the starter builds {@link Occ}, {@link TreeLocks} and the
 * {@link PropagationDefaults} on it from {@code esrel.*} properties, turns esrel's give-ups into Spring's exceptions, and
 * contributes the {@code esrel} health indicator and the {@code esrel.*} meters printed at the end.
 *
 * <p>Run by the README's main command after the other samples, or alone: {@code mvn -B -Prun-samples -DskipTests
 * verify -Desrel.samples=spring}. Like the other samples it starts its own real node with the plugin (testenv) and
 * checks what it prints, failing when reality disagrees.
 */
@SpringBootApplication
public class SpringSample {

    private static final String DESIGNS = "spring-designs";
    private static final String REPORTS = "spring-reports";
    private static final String USERS = "spring-users";
    private static final String POSTS = "spring-posts";
    private static final int VOTERS = 16;
    private static final int VOTES_EACH = 25;
    private static final int POSTS_OF_JOHN = 500;
    /** The observations of esrel-micrometer (calls that span several requests); Boot times each of them too. */
    private static final List<String> OBSERVATIONS =
            List.of("esrel.occ", "esrel.lock.acquisition", "esrel.propagation.page");

    /** A t-shirt design and its votes, stored through Boot's own JSON mapper. */
    record Design(String name, long votes) {
        Design vote() {
            return new Design(name, votes + 1);
        }
    }

    /**
     * Starts a node, the application on it, runs the scenario and stops both.
     *
     * @param args the samples to run ({@code all} or a comma-separated list); this one runs for {@code all} and for
     *     lists naming {@code spring}
     * @throws Exception when the node or the scenario fails
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        String chosen = args.length == 0 ? "all" : args[0];
        if (!chosen.isBlank()
                && !chosen.equals("all")
                && Arrays.stream(chosen.split("\\s*,\\s*")).noneMatch("spring"::equals)) {
            out.printf("[spring] not among the samples chosen (%s)%n", chosen);
            return;
        }
        String version = System.getProperty("esrel.es.version", "9.5.3");
        if (version.startsWith("8.")) {
            out.printf(
                    "[spring] skipped: Boot 4.0's elasticsearch-java 9.2 talks to Elasticsearch 9, not %s"
                            + " (a Boot 3.5 application uses esrel-spring-boot3-starter)%n",
                    version);
            return;
        }
        try (EsCluster node = EsCluster.builder().build()) {
            out.printf(
                    "Starting a real Elasticsearch %s node with the esrel plugin for the Spring Boot sample%n",
                    version);
            node.start();
            String uris = node.httpUris().stream().map(URI::toString).collect(Collectors.joining(","));
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SpringSample.class)
                    .web(WebApplicationType.NONE)
                    .bannerMode(Banner.Mode.OFF)
                    .properties(
                            "spring.elasticsearch.uris=" + uris,
                            "esrel.locks.namespace=" + REPORTS,
                            "esrel.locks.ttl=30s",
                            "management.endpoint.health.show-details=always",
                            "logging.level.root=WARN")
                    .run()) {
                out.println("=".repeat(100));
                out.println("[spring] esrel's Spring Boot starter: beans, Spring's exceptions, health and meters");
                out.println("=".repeat(100));
                run(context, out);
            }
            scheduledJob(uris, out);
        }
        out.println("Spring Boot sample finished.");
    }

    static void run(ConfigurableApplicationContext context, PrintStream out) throws Exception {
        ElasticsearchClient es = context.getBean(ElasticsearchClient.class);
        Occ occ = context.getBean(Occ.class);
        TreeLocks locks = context.getBean(TreeLocks.class);
        PropagationDefaults propagation = context.getBean(PropagationDefaults.class);
        out.printf(
                "Boot's client: %s with %s; the starter's beans: %s, TreeLocks on %s%n%n",
                es._transport().getClass().getSimpleName(),
                es._jsonpMapper().getClass().getSimpleName(),
                occ,
                locks.backend());
        for (String index : List.of(DESIGNS, REPORTS, USERS, POSTS)) {
            if (es.indices().exists(e -> e.index(index)).value()) {
                es.indices().delete(d -> d.index(index));
            }
            es.indices()
                    .create(c ->
                            c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("0")));
        }

        // 1. The hot document: 16 voters through the Occ bean, no vote lost.
        es.index(i -> i.index(DESIGNS).id("tux").document(new Design("tux", 0)));
        ExecutorService pool = Executors.newFixedThreadPool(VOTERS);
        List<Future<Integer>> conflicts = new ArrayList<>();
        for (int v = 0; v < VOTERS; v++) {
            conflicts.add(pool.submit(() -> {
                int met = 0;
                for (int i = 0; i < VOTES_EACH; i++) {
                    met += occ.update(DESIGNS, "tux", Design.class, Design::vote)
                            .conflicts();
                }
                return met;
            }));
        }
        int conflictsMet = 0;
        for (Future<Integer> f : conflicts) {
            conflictsMet += f.get();
        }
        pool.shutdown();
        Design tux = occ.get(DESIGNS, "tux", Design.class).orElseThrow().value();
        out.printf(
                "1. %d voters x %d votes through the Occ bean: %d votes stored (%d version conflicts met and retried)%n",
                VOTERS, VOTES_EACH, tux.votes(), conflictsMet);
        check(tux.votes() == VOTERS * VOTES_EACH, "every vote stored, got " + tux.votes());
        DistributionSummary combined = context.getBean(MeterRegistry.class)
                .get("esrel.occ.combined.writes")
                .tag("index", DESIGNS)
                .summary();
        check(combined.count() > 0, "the 16 voters' updates were combined");
        out.printf(
                "   so few conflicts: the Occ bean combined %,.0f of the %,d updates into %,d conditional writes"
                        + " (esrel.occ.combined.writes), one write in flight per document%n",
                combined.totalAmount(), VOTERS * VOTES_EACH, combined.count());

        // 2. A stale conditional write: Spring's exception, as Spring Data's repositories throw it.
        Versioned<Design> seen = occ.get(DESIGNS, "tux", Design.class).orElseThrow();
        occ.update(DESIGNS, "tux", Design.class, Design::vote);
        try {
            occ.replace(seen, seen.value().vote());
            throw new IllegalStateException("a write on a stale version was accepted");
        } catch (OptimisticLockingFailureException e) {
            out.printf(
                    "2. a write on a version another writer replaced: %s%n   %s%n",
                    e.getClass().getName(), e.getMessage());
        }

        // 3. Tree locks: a report being written holds /2026/q4 exclusively, so /2026 as a whole cannot be archived.
        try (TreeLock writing = locks.acquire("/2026/q4", LockMode.EXCLUSIVE).orThrow()) {
            try {
                locks.acquire("/2026", LockMode.EXCLUSIVE, Duration.ofMillis(300))
                        .orThrow();
                throw new IllegalStateException("/2026 locked while /2026/q4 is held");
            } catch (CannotAcquireLockException e) {
                out.printf(
                        "3. /2026/q4 held (token %d); locking /2026 for 300 ms: %s%n   %s%n",
                        writing.token(), e.getClass().getName(), e.getMessage());
            }
        }

        // 4. Propagation: the application builds it (a per-relation object) from the starter's defaults, which bring
        // Boot's client, the esrel.propagation.* settings and the meters.
        es.index(i -> i.index(USERS).id("1").document(Map.of("name", "John Smith")));
        es.indices().putMapping(m -> m.index(POSTS).withJson(new StringReader("""
            {"properties": {"user": {"properties": {"id": {"type": "keyword"}, "name": {"type": "keyword"}}}}}""")));
        es.bulk(b -> {
            for (int i = 0; i < POSTS_OF_JOHN; i++) {
                String id = "p" + i;
                b.operations(o -> o.index(x -> x.index(POSTS)
                        .id(id)
                        .document(Map.of("title", "post " + id, "user", Map.of("id", "1", "name", "John Smith")))));
            }
            return b.refresh(co.elastic.clients.elasticsearch._types.Refresh.True);
        });
        es.index(i -> i.index(USERS).id("1").document(Map.of("name", "John A. Smith")));
        Relation author = Relation.of(r -> r.name("post-author")
                .parentIndex(USERS)
                .childIndex(POSTS)
                .parentIdField("user.id")
                .copy("name", "user.name"));
        Propagator propagator =
                Propagator.of(p -> propagation.applyTo(p).relation(author).batchSize(100));
        PropagationResult renamed = propagator.propagate("1");
        out.printf(
                "4. John renamed: %d posts rewritten by the propagation job (%s)%n",
                renamed.counts().written(), renamed.state());
        check(renamed.complete() && renamed.counts().written() == POSTS_OF_JOHN, "every post renamed: " + renamed);

        // 5. A Spring Data repository with esrel: saved by Spring Data, voted by 8 threads through the repository's
        // esrel fragment, stored as Spring Data stores it.
        springData(context, out);

        // 6. Health and meters, as /actuator/health/esrel and /actuator/metrics show them.
        HealthDescriptor health = context.getBean(HealthEndpoint.class).healthForPath("esrel");
        out.printf("%n6. health of esrel: %s%n", health.getStatus());
        if (health instanceof IndicatedHealthDescriptor indicated) {
            indicated.getDetails().forEach((k, v) -> out.printf("   %-20s %s%n", k, v));
        }
        check("UP".equals(health.getStatus().getCode()), "esrel's health is UP");
        out.println("\n   esrel's meters (as /actuator/metrics/esrel.occ.calls and so on show them):");
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        registry.getMeters().stream()
                .filter(m -> m.getId().getName().startsWith("esrel.")
                        && !OBSERVATIONS.contains(m.getId().getName())
                        && !m.getId().getName().endsWith(".active"))
                .sorted(Comparator.comparing((Meter m) -> m.getId().getName())
                        .thenComparing(m -> m.getId().getTags().toString()))
                .forEach(m -> out.printf("   %-34s %-58s %s%n", m.getId().getName(), tags(m), measures(m)));
        out.printf(
                "   and the timers Boot's observation handler makes of esrel's observations: %s%n",
                String.join(", ", OBSERVATIONS));
    }

    /**
     * 5. Spring Data Elasticsearch with esrel: {@link ShirtRepository} is Spring Data's repository, extended with esrel's
     * fragment. The starter found Spring Data and gave the {@code Occ} bean Spring Data's converter, so the entity's
     * {@code @Field} names, its epoch_millis date and the {@code _class} hint are stored as Spring Data stores them.
     */
    static void springData(ConfigurableApplicationContext context, PrintStream out) throws Exception {
        ShirtRepository shirts = context.getBean(ShirtRepository.class);
        ElasticsearchClient es = context.getBean(ElasticsearchClient.class);
        shirts.save(new Shirt("penguin", "Penguin", java.time.Instant.parse("2026-12-04T09:00:00Z")));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int v = 0; v < 8; v++) {
            done.add(pool.submit(() -> {
                for (int i = 0; i < VOTES_EACH; i++) {
                    shirts.update("penguin", Shirt::vote);
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
        Shirt penguin = shirts.findById("penguin").orElseThrow();
        String stored = es.get(g -> g.index("spring-shirts").id("penguin"), co.elastic.clients.json.JsonData.class)
                .source()
                .toJson(es._jsonpMapper())
                .toString();
        out.printf(
                "5. a Spring Data repository extending EsrelRepository: 8 threads x %d shirts.update(id, Shirt::vote)"
                        + " -> findById: %s, %d votes, created %s, %s%n   stored as Spring Data stores it: %s%n",
                VOTES_EACH,
                penguin.getName(),
                penguin.getVotes(),
                penguin.getCreated(),
                penguin.getSeqNoPrimaryTerm(),
                stored);
        check(penguin.getVotes() == 8 * VOTES_EACH, "every vote stored, got " + penguin.getVotes());
        check(stored.contains("_class") && stored.contains("vote_count"), "Spring Data's document: " + stored);
    }

    /**
     * 7. Two instances of the application schedule the same {@code @SchedulerLock} job ({@link ReportJob}) every
     * 100 ms for 5 s: the starter's ShedLock provider lets one instance at a time run it, and none again within
     * its {@code lockAtLeastFor} of 2 s.
     */
    static void scheduledJob(String uris, PrintStream out) throws InterruptedException {
        try (ConfigurableApplicationContext a = jobInstance(uris, "instance-a");
                ConfigurableApplicationContext b = jobInstance(uris, "instance-b")) {
            check(a.isActive() && b.isActive(), "both instances started");
            Thread.sleep(5000);
        }
        List<Long> starts = ReportJob.STARTS;
        long closest = Long.MAX_VALUE;
        for (int i = 1; i < starts.size(); i++) {
            closest = Math.min(closest, starts.get(i) - starts.get(i - 1));
        }
        out.printf(
                "%n7. two instances scheduling the @SchedulerLock job \"quarterly/report\" every 100 ms"
                        + " (lockAtLeastFor 2 s) for 5 s: it ran %d times, by %s; never in both at once (at most %d"
                        + " running), runs at least %d ms apart%n",
                ReportJob.RUNS.size(),
                ReportJob.RUNS,
                ReportJob.MOST_RUNNING.get(),
                starts.size() < 2 ? 0 : closest / 1_000_000);
        check(ReportJob.MOST_RUNNING.get() == 1, "one instance at a time ran the job");
        check(starts.size() >= 2, "the job ran in the 2 s windows, got " + ReportJob.RUNS.size() + " runs");
        // lockAtLeastFor is counted by the node from when it received the lock request: a few ms of tolerance for
        // the request's way there.
        check(
                closest >= 1_950_000_000L,
                "no run within 2 s of the one before, the closest " + closest / 1_000_000 + " ms");
    }

    private static ConfigurableApplicationContext jobInstance(String uris, String owner) {
        return new SpringApplicationBuilder(SpringSample.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .properties(
                        "spring.elasticsearch.uris=" + uris,
                        "esrel.locks.namespace=" + REPORTS,
                        "esrel.locks.owner=" + owner,
                        "sample.jobs=true",
                        "logging.level.root=WARN")
                .run();
    }

    private static String tags(Meter m) {
        return m.getId().getTags().stream()
                .map(t -> t.getKey() + "=" + t.getValue())
                .collect(Collectors.joining(",", "{", "}"));
    }

    private static String measures(Meter m) {
        return StreamSupport.stream(m.measure().spliterator(), false)
                .map(x -> x.getStatistic().name().toLowerCase() + "=" + format(x.getValue()))
                .collect(Collectors.joining(" "));
    }

    private static String format(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format("%.3f", v);
    }

    private static void check(boolean holds, String claim) {
        if (!holds) {
            throw new IllegalStateException("the sample's claim does not hold: " + claim);
        }
    }
}
