package io.github.esrel.spring.data;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccConflictException;
import io.github.esrel.occ.OccListener;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.data.elasticsearch.client.elc.ElasticsearchTemplate;
import org.springframework.retry.support.RetryTemplate;
import org.springframework.retry.support.RetryTemplateBuilder;

/**
 * The README's comparison, measured: 8 threads cast 25 votes each on one {@code @Document} entity with a
 * {@code SeqNoPrimaryTerm} property, through Spring Data alone ({@code get}, change, {@code save}: a conditional write
 * that throws {@code OptimisticLockingFailureException} on a conflict), through Spring Data with Spring Retry around
 * that read-change-save (as {@code @Retryable}'s defaults have it: 3 attempts, 1 s apart; and with esrel's own
 * retry budget: 100 attempts, 5 to 500 ms exponential with jitter), and through esrel's {@code Occ}. Each row prints
 * as {@code FIGURE | ...} into the test's output; the invariants are asserted: Spring Data never loses a vote
 * silently (every call either stored its vote or threw), esrel stores all 200.
 */
@EsrelTest
class OptimisticLockingComparisonIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static final int THREADS = 8;
    private static final int VOTES_EACH = 25;
    private static final int VOTES = THREADS * VOTES_EACH;

    static ElasticsearchClient es;
    static ElasticsearchTemplate template;

    @BeforeAll
    static void setUp() {
        es = cluster.client();
        template = new ElasticsearchTemplate(es);
        if (!template.indexOps(Design.class).exists()) {
            template.indexOps(Design.class).createWithMapping();
        }
        System.out.println("FIGURE | variant | votes stored of " + VOTES
                + " | calls that threw | read-change-write attempts" + " (esrel: 0, see its writes row) | seconds");
    }

    @AfterAll
    static void done() {
        System.out.println("FIGURE | end");
    }

    /** One vote, as an application with Spring Data alone casts it: read, change, conditional save. */
    private static void voteWithSpringData(String id, AtomicInteger attempts) {
        attempts.incrementAndGet();
        Design d = template.get(id, Design.class);
        d.vote();
        template.save(d); // if_seq_no/if_primary_term from the SeqNoPrimaryTerm read
    }

    @Test
    void springDataAloneThrowsOnConflictsAndRetriesNothing() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        Row row = run("sd-alone", "Spring Data alone", id -> voteWithSpringData(id, attempts), attempts);
        assertThat(row.stored + row.threw)
                .as("every call stored its vote or threw")
                .isEqualTo(VOTES);
        assertThat(row.attempts).isEqualTo(VOTES);
    }

    @Test
    void springDataWithSpringRetrysDefaults() throws Exception {
        // @Retryable(retryFor = OptimisticLockingFailureException.class): 3 attempts, 1 s apart.
        withSpringRetry(
                "sd-retry-defaults",
                "Spring Data + Spring Retry, @Retryable defaults (3 attempts, 1 s backoff)",
                RetryTemplate.builder().maxAttempts(3).fixedBackoff(1000));
    }

    @Test
    void springDataWithSpringRetryOnEsrelsBudget() throws Exception {
        withSpringRetry(
                "sd-retry-100",
                "Spring Data + Spring Retry, 100 attempts, 5-500 ms exponential with jitter",
                RetryTemplate.builder().maxAttempts(100).exponentialBackoff(5, 2, 500, true));
    }

    /** Spring Data's read-change-save, retried on its conflicts by Spring Retry as configured. */
    private static void withSpringRetry(String id, String variant, RetryTemplateBuilder config) throws Exception {
        RetryTemplate retry =
                config.retryOn(OptimisticLockingFailureException.class).build();
        AtomicInteger attempts = new AtomicInteger();
        Row row = run(
                id,
                variant,
                doc -> retry.execute(c -> {
                    voteWithSpringData(doc, attempts);
                    return null;
                }),
                attempts);
        assertThat(row.stored + row.threw)
                .as("every call stored its vote or threw")
                .isEqualTo(VOTES);
    }

    @Test
    void esrelStoresEveryVote() throws Exception {
        // What the writes did: combined writes and the votes they carried, conflicts met (charged to every call a
        // conflicting write carried).
        AtomicInteger combinedWrites = new AtomicInteger();
        AtomicInteger combinedCalls = new AtomicInteger();
        AtomicInteger conflicts = new AtomicInteger();
        OccListener counting = new OccListener() {
            @Override
            public void onCombinedWrite(String index, int calls) {
                combinedWrites.incrementAndGet();
                combinedCalls.addAndGet(calls);
            }

            @Override
            public void onConflict(String index, String id, int attempt) {
                conflicts.incrementAndGet();
            }
        };
        Occ occ = Occ.of(b -> b.client(es)
                .documentConverter(SpringDataDocumentConverter.of(template, es))
                .listener(counting));
        AtomicInteger writes = new AtomicInteger();
        Row row = run(
                "esrel",
                "esrel Occ.update (write combining, defaults)",
                id -> occ.update("designs", id, Design.class, Design::vote),
                writes);
        System.out.printf(
                "FIGURE | esrel: writes | %d combined writes carried %d votes, %d votes written alone; %d conflicts met%n",
                combinedWrites.get(), combinedCalls.get(), VOTES - combinedCalls.get(), conflicts.get());
        assertThat(row.threw).isZero();
        assertThat(row.stored).isEqualTo(VOTES);
    }

    interface Vote {
        void cast(String id) throws Exception;
    }

    record Row(int stored, int threw, int attempts) {}

    private static Row run(String id, String variant, Vote vote, AtomicInteger attempts) throws Exception {
        template.save(new Design(id, variant, 0, Instant.parse("2026-12-04T00:00:00Z")));
        AtomicInteger threw = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        long t0;
        long t1;
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    for (int i = 0; i < VOTES_EACH; i++) {
                        try {
                            vote.cast(id);
                        } catch (OptimisticLockingFailureException | OccConflictException e) {
                            threw.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            t0 = System.nanoTime();
            for (Future<?> f : done) {
                f.get(300, TimeUnit.SECONDS);
            }
            t1 = System.nanoTime();
        } finally {
            pool.shutdownNow();
        }
        int stored = template.get(id, Design.class).getVotes();
        Row row = new Row(stored, threw.get(), attempts.get());
        System.out.printf(
                "FIGURE | %s | %d | %d | %d | %.1f%n", variant, row.stored, row.threw, row.attempts, (t1 - t0) / 1e9);
        return row;
    }
}
