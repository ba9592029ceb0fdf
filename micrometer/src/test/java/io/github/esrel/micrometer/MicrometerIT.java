package io.github.esrel.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.ExceptionTranslator;
import io.github.esrel.denorm.JobState;
import io.github.esrel.denorm.PropagationResult;
import io.github.esrel.denorm.Propagator;
import io.github.esrel.denorm.Relation;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.PluginTreeLocks;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLockException;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccListener;
import io.github.esrel.occ.OccMetrics;
import io.github.esrel.occ.Outcome;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.view.Intent;
import io.github.esrel.view.MaterializedView;
import io.github.esrel.view.ViewChange;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The meters read back after real work on a real node agree exactly with what esrel's own outcomes and
 * {@link OccMetrics} say: a hot document written by 16 threads through one combining {@link Occ} while 4 more
 * threads write it through an uncombined one (so that there are conflicts), a tree lock granted, busy, refused
 * and released, a propagation of 250 children in pages of 100, and two view rebuilds with their intents.
 */
@EsrelTest
class MicrometerIT {

    private static final int COMBINED_THREADS = 16;
    private static final int SOLO_THREADS = 4;
    private static final int EACH = 40;

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final ElasticsearchClient es = cluster.client();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final TestObservationRegistry observations = TestObservationRegistry.create();
    private final EsrelMicrometer micrometer = EsrelMicrometer.builder()
            .registry(registry)
            .observations(observations)
            .build();

    /** A counter document. */
    record Counter(long n) {}

    /** Both listeners, as an application that keeps {@link OccMetrics} and the meters would wire them. */
    record Both(OccListener a, OccListener b) implements OccListener {
        @Override
        public void onConflict(String index, String id, int attempt) {
            a.onConflict(index, id, attempt);
            b.onConflict(index, id, attempt);
        }

        @Override
        public void onOutcome(Outcome<?> outcome) {
            a.onOutcome(outcome);
            b.onOutcome(outcome);
        }

        @Override
        public void onStart(String index, Outcome.Operation operation) {
            a.onStart(index, operation);
            b.onStart(index, operation);
        }

        @Override
        public void onFailure(String index, Outcome.Operation operation, RuntimeException failure, Duration took) {
            a.onFailure(index, operation, failure, took);
            b.onFailure(index, operation, failure, took);
        }

        @Override
        public void onCombinedWrite(String index, int calls) {
            a.onCombinedWrite(index, calls);
            b.onCombinedWrite(index, calls);
        }
    }

    /** Counts combined writes itself, the reference for the meter. */
    static final class CombinedWrites implements OccListener {
        final AtomicLong writes = new AtomicLong();
        final AtomicLong calls = new AtomicLong();

        @Override
        public void onCombinedWrite(String index, int n) {
            writes.incrementAndGet();
            calls.addAndGet(n);
        }
    }

    @Test
    void shouldAgreeWithOccMetricsAndTheOutcomesOnAHotDocument() throws Exception {
        es.indices().create(c -> c.index("hot"));
        es.index(i -> i.index("hot").id("1").document(new Counter(0)));
        OccMetrics metrics = new OccMetrics();
        CombinedWrites combinedRef = new CombinedWrites();
        OccListener listener = new Both(micrometer.occListener(), new Both(metrics, combinedRef));
        RetryPolicy patient = RetryPolicy.of(b -> b.maxAttempts(1000).deadline(Duration.ofMinutes(2)));
        Occ combining = Occ.of(b -> b.client(es).retryPolicy(patient).listener(listener));
        Occ solo = Occ.of(
                b -> b.client(es).retryPolicy(patient).combineWrites(false).listener(listener));
        List<Outcome<Counter>> outcomes = new CopyOnWriteArrayList<>();

        runConcurrently(COMBINED_THREADS + SOLO_THREADS, w -> {
            Occ occ = w < COMBINED_THREADS ? combining : solo;
            for (int i = 0; i < EACH; i++) {
                outcomes.add(occ.update("hot", "1", Counter.class, c -> new Counter(c.n() + 1)));
            }
            return null;
        });

        int calls = (COMBINED_THREADS + SOLO_THREADS) * EACH;
        OccMetrics.Snapshot m = metrics.snapshot();
        assertThat(es.get(g -> g.index("hot").id("1"), Counter.class).source().n())
                .isEqualTo(calls);
        assertThat(m.written()).isEqualTo(calls);
        assertThat(registry.get(OccMeters.CALLS)
                        .tags("index", "hot", "operation", "update", "outcome", "updated")
                        .timer()
                        .count())
                .isEqualTo(calls)
                .isEqualTo(outcomes.size());
        DistributionSummary attempts = registry.get(OccMeters.ATTEMPTS)
                .tags("index", "hot", "operation", "update")
                .summary();
        assertThat(attempts.count()).isEqualTo(calls);
        assertThat((long) attempts.totalAmount())
                .isEqualTo(m.totalAttempts())
                .isEqualTo(outcomes.stream().mapToLong(Outcome::attempts).sum());
        double conflicts =
                registry.get(OccMeters.CONFLICTS).tags("index", "hot").counter().count();
        assertThat((long) conflicts)
                .isEqualTo(m.conflicts())
                .isEqualTo(outcomes.stream().mapToLong(Outcome::conflicts).sum());
        assertThat(m.conflicts()).as("the uncombined writers conflict").isPositive();
        assertThat(registry.find(OccMeters.GIVE_UPS).counters()).isEmpty();

        DistributionSummary combined =
                registry.get(OccMeters.COMBINED_WRITES).tags("index", "hot").summary();
        assertThat(combined.count()).isEqualTo(combinedRef.writes.get()).isPositive();
        assertThat((long) combined.totalAmount()).isEqualTo(combinedRef.calls.get());
        // The combined writes that landed are the stored versions that several outcomes name; the others conflicted.
        Map<Long, Long> callsPerVersion =
                outcomes.stream().collect(Collectors.groupingBy(Outcome::seqNo, Collectors.counting()));
        long landed = callsPerVersion.values().stream().filter(n -> n > 1).count();
        assertThat(landed).isPositive().isLessThanOrEqualTo(combined.count());

        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(OccMeters.OBSERVATION, calls)
                .forAllObservationsWithNameEqualTo(
                        OccMeters.OBSERVATION, o -> o.hasLowCardinalityKeyValue("outcome", "updated"));
    }

    @Test
    void shouldCountATreeLockGrantedBusyRefusedAndReleased() throws Exception {
        es.indices().create(c -> c.index("fs"));
        ExceptionTranslator wrap = e -> new IllegalStateException("translated", e);
        try (TreeLocks locks = PluginTreeLocks.of(b ->
                b.client(es).index("fs").listener(micrometer.lockListener()).exceptionTranslator(wrap))) {
            TreeLock held = locks.acquire("/a", LockMode.EXCLUSIVE).orThrow();
            AcquireResult<TreeLock> busy = locks.acquire(LockRequest.of(
                    b -> b.path("/a/b").mode(LockMode.SHARED).owner("other").maxWait(Duration.ofMillis(200))));
            assertThat(busy.acquired()).isFalse();
            assertThatThrownBy(busy::orThrow)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("translated")
                    .cause()
                    .isInstanceOfSatisfying(
                            TreeLockException.class, e -> assertThat(e.status()).isEqualTo(409));
            // Longer than the node's maximum lease: refused by the server.
            assertThatThrownBy(
                            () -> locks.acquire(LockRequest.of(b -> b.path("/c").ttl(Duration.ofHours(2)))))
                    .isInstanceOf(TreeLockException.class);
            held.close();
        }

        assertThat(acquisitions("exclusive", "granted")).isEqualTo(1);
        assertThat(acquisitions("shared", "busy")).isEqualTo(1);
        assertThat(acquisitions("exclusive", "denied")).isEqualTo(1);
        assertThat(registry.get(LockMeters.ACQUIRE)
                        .tags("mode", "shared", "outcome", "busy")
                        .timer()
                        .totalTime(TimeUnit.MILLISECONDS))
                .as("a busy acquisition waited its maxWait")
                .isGreaterThanOrEqualTo(200);
        assertThat(registry.get(LockMeters.RELEASES)
                        .tags("index", "fs", "outcome", "held")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get(LockMeters.LOST).counter().count()).isZero();
        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(LockMeters.OBSERVATION, 3)
                .hasAnObservationWithAKeyValue("outcome", "granted")
                .hasAnObservationWithAKeyValue("outcome", "busy")
                .hasAnObservationWithAKeyValue("outcome", "denied");
        assertThat(observations.getCurrentObservation()).isNull();
    }

    @Test
    void shouldCountThePropagatedDocumentsAsTheJobReportsThem() throws Exception {
        es.indices().create(c -> c.index("users"));
        es.indices().create(c -> c.index("posts").withJson(new StringReader("""
                {"mappings": {"properties": {"user": {"properties": {
                  "id": {"type": "keyword"}, "name": {"type": "keyword"}}}}}}""")));
        es.index(i -> i.index("users").id("1").document(Map.of("name", "John Q. Smith")));
        List<BulkOperation> posts = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            Map<String, Object> post = Map.of("title", "post " + i, "user", Map.of("id", "1", "name", "John Smith"));
            String id = "p" + i;
            posts.add(BulkOperation.of(o -> o.index(x -> x.index("posts").id(id).document(post))));
        }
        assertThat(es.bulk(b -> b.operations(posts).refresh(Refresh.True)).errors())
                .isFalse();
        Propagator propagator = Propagator.of(b -> b.client(es)
                .relation(Relation.of(r -> r.name("post-author")
                        .parentIndex("users")
                        .childIndex("posts")
                        .parentIdField("user.id")
                        .copy("name", "user.name")))
                .batchSize(100)
                .listener(micrometer.propagationListener()));

        PropagationResult result = propagator.propagate("1");

        assertThat(result.state()).isEqualTo(JobState.COMPLETED);
        assertThat(result.counts().written()).isEqualTo(250);
        assertThat(propagated("done")).isEqualTo(result.counts().done());
        assertThat(propagated("written")).isEqualTo(result.counts().written());
        assertThat(propagated("conflicting")).isEqualTo(result.counts().conflicts());
        assertThat(propagated("failed")).isZero();
        assertThat(registry.get(PropagationMeters.JOBS)
                        .tags("state", "completed")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get(PropagationMeters.CHECKPOINT_AGE).timeGauge().value(TimeUnit.SECONDS))
                .as("no job runs")
                .isZero();
        TestObservationRegistryAssert.assertThat(observations)
                .hasObservationWithNameEqualTo(PropagationMeters.OBSERVATION)
                .that()
                .hasLowCardinalityKeyValue("pass", "main")
                .hasBeenStopped();
    }

    @Test
    void shouldCountViewRebuildsAndPendingIntents() throws Exception {
        es.indices().create(c -> c.index("people"));
        es.indices().create(c -> c.index("photos").withJson(new StringReader("""
                {"mappings": {"properties": {"user_id": {"type": "keyword"}}}}""")));
        es.indices().create(c -> c.index("photo-views").withJson(new StringReader("""
                {"mappings": {"properties": {"user_id": {"type": "keyword"}, "user_hair": {"type": "keyword"},
                  "esrel": {"type": "object", "enabled": false}}}}""")));
        es.index(i -> i.index("people").id("u1").document(Map.of("hair", "red")));
        MaterializedView<ObjectNode, ObjectNode> views = MaterializedView.of(
                ObjectNode.class,
                ObjectNode.class,
                v -> v.client(es)
                        .name("photo-views")
                        .sourceIndex("photos")
                        .parentIndex("people")
                        .parentIdField("user_id")
                        .viewIndex("photo-views")
                        .stateIndex("photo-views-state")
                        .copyParent("hair", "user_hair")
                        .listener(micrometer.viewListener()));

        ViewChange<String> changed = views.changeSource("p1", () -> {
            es.index(i -> i.index("photos").id("p1").document(Map.of("user_id", "u1")));
            return "ok";
        });
        Intent open = views.beginSourceChange("p2");
        es.index(i -> i.index("photos").id("p2").document(Map.of("user_id", "u1")));

        assertThat(changed.intentCleared()).isTrue();
        assertThat(registry.get(ViewMeters.PENDING).gauge().value()).isEqualTo(1);
        views.complete(open);
        assertThat(registry.get(ViewMeters.PENDING).gauge().value()).isZero();
        assertThat(registry.get(ViewMeters.REBUILDS)
                        .tags("outcome", "written")
                        .counter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get(ViewMeters.INTENTS)
                        .tags("event", "recorded")
                        .counter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get(ViewMeters.INTENTS)
                        .tags("event", "cleared")
                        .counter()
                        .count())
                .isEqualTo(2);
    }

    private long propagated(String outcome) {
        return (long) registry.get(PropagationMeters.DOCUMENTS)
                .tags("outcome", outcome)
                .counter()
                .count();
    }

    private long acquisitions(String mode, String outcome) {
        return registry.get(LockMeters.ACQUIRE)
                .tags("index", "fs", "mode", mode, "outcome", outcome)
                .timer()
                .count();
    }

    static <R> List<R> runConcurrently(int n, Function<Integer, R> writer) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CyclicBarrier start = new CyclicBarrier(n);
        try {
            List<Future<R>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int me = i;
                futures.add(pool.submit((Callable<R>) () -> {
                    start.await(30, TimeUnit.SECONDS);
                    return writer.apply(me);
                }));
            }
            List<R> results = new ArrayList<>();
            for (Future<R> f : futures) {
                results.add(f.get(180, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
