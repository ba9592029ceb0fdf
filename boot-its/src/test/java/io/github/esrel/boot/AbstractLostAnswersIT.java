package io.github.esrel.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.boot.data.BootDesign;
import io.github.esrel.boot.data.BootDesignRepository;
import io.github.esrel.doc.DocRef;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.testenv.LossyProxy;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Lost answers in a Spring Boot application whose client Boot builds from two {@code spring.elasticsearch.uris}, as a
 * production application lists its nodes: the first is a proxy in front of the node that loses a fifth of the answers
 * to writes after the node applied them. 8 threads vote on a Spring Data entity through the repository's esrel fragment
 * and the starter's {@code Occ}: no vote is applied twice, none reported done that was not,
 * {@code acknowledged <= final <= acknowledged + unknown}. One subclass per Boot line.
 */
@EsrelTest
@SpringBootTest(classes = EsrelBootApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
abstract class AbstractLostAnswersIT {

    private static final int THREADS = 8;
    private static final int VOTES_EACH = 40;

    @Cluster
    static final EsCluster node = EsCluster.builder().shared().build();

    private static LossyProxy proxy;

    @DynamicPropertySource
    static void elasticsearch(DynamicPropertyRegistry registry) {
        registry.add("spring.elasticsearch.uris", () -> {
            node.start();
            try {
                proxy = LossyProxy.to(node.httpUri()).seed(7).dropAnswers(0.2, LossyProxy.WRITES);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return proxy.uri() + "," + node.httpUri();
        });
    }

    @AfterAll
    static void closeProxy() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Autowired
    BootDesignRepository designs;

    @Autowired
    Occ occ;

    @Test
    void shouldNeverApplyAVoteTwiceNorReportOneDoneThatWasNot() throws Exception {
        designs.save(new BootDesign("lost-1", "Aurora", Instant.parse("2026-12-07T09:30:15Z")));
        long before = proxy.answersDropped();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        Map<Outcome.Status, Long> outcomes = new EnumMap<>(Outcome.Status.class);
        try {
            List<Future<Outcome<BootDesign>>> votes = new ArrayList<>();
            for (int i = 0; i < THREADS * VOTES_EACH; i++) {
                boolean throughRepository = i % 2 == 0;
                votes.add(pool.submit(() -> throughRepository
                        ? designs.tryUpdate("lost-1", BootDesign::vote)
                        : occ.tryUpdate(DocRef.of("boot-designs", "lost-1"), BootDesign.class, BootDesign::vote)));
            }
            for (Future<Outcome<BootDesign>> vote : votes) {
                outcomes.merge(vote.get(2, TimeUnit.MINUTES).status(), 1L, Long::sum);
            }
        } finally {
            pool.shutdownNow();
        }
        long acknowledged = outcomes.getOrDefault(Outcome.Status.UPDATED, 0L);
        long unknown = outcomes.getOrDefault(Outcome.Status.UNKNOWN, 0L);
        long votes = designs.findById("lost-1").orElseThrow().getVotes();
        System.out.println(
                "answers lost " + (proxy.answersDropped() - before) + ", outcomes " + outcomes + ", final " + votes);

        assertThat(proxy.answersDropped() - before).as("answers were lost").isPositive();
        assertThat(outcomes.keySet()).isSubsetOf(Outcome.Status.UPDATED, Outcome.Status.UNKNOWN);
        assertThat(votes).isBetween(acknowledged, acknowledged + unknown);
    }
}
