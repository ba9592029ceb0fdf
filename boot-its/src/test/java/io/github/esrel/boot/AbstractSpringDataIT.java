package io.github.esrel.boot;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.JsonData;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.boot.data.BootDesign;
import io.github.esrel.boot.data.BootDesignRepository;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.spring.data.SpringDataDocumentConverter;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.elasticsearch.core.ElasticsearchOperations;
import org.springframework.data.elasticsearch.core.mapping.IndexCoordinates;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Issue 29 in a real Spring Boot application with Spring Data Elasticsearch and esrel's starter, configured with
 * nothing but {@code spring.elasticsearch.uris}: an entity saved by a Spring Data repository, voted 200 times by 8
 * threads through esrel (half through the starter's {@code Occ}, half through the repository's esrel fragment), read
 * back by Spring Data with every field as it was plus the 200 votes, and stored exactly as Spring Data stores the same
 * entity (whole documents compared). One subclass per Boot line; the node is shared with the line's other IT.
 */
@EsrelTest
@SpringBootTest(classes = EsrelBootApplication.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
abstract class AbstractSpringDataIT {

    private static final int THREADS = 8;
    private static final int VOTES_EACH = 25;
    private static final Instant CREATED = Instant.parse("2026-12-04T09:30:15.250Z");

    @Cluster
    static final EsCluster node = EsCluster.builder().shared().build();

    @DynamicPropertySource
    static void elasticsearch(DynamicPropertyRegistry registry) {
        registry.add("spring.elasticsearch.uris", () -> {
            node.start();
            return node.httpUris().stream().map(URI::toString).collect(Collectors.joining(","));
        });
    }

    @Autowired
    ElasticsearchClient es;

    @Autowired
    ElasticsearchOperations operations;

    @Autowired
    BootDesignRepository designs;

    /** The starter's. */
    @Autowired
    Occ occ;

    @Autowired
    SpringDataDocumentConverter converter;

    /** docs/spring.md: the repository with esrel's fragment, as the guide calls it. */
    @Test
    void shouldCallTheFragmentAsTheGuideShowsIt() {
        // tag::repository-calls[]
        designs.save(new BootDesign("guide-1", "Boreal", Instant.now())); // Spring Data
        designs.update("guide-1", BootDesign::vote); // esrel: re-read and applied again on a conflict
        designs.upsert("guide-2", () -> new BootDesign("guide-2", "Cirrus", Instant.now()), BootDesign::vote);
        Outcome<BootDesign> tried = designs.tryUpdate("guide-1", BootDesign::vote); // giving up is a value
        // end::repository-calls[]
        assertThat(tried.status()).isEqualTo(Outcome.Status.UPDATED);
        assertThat(designs.findById("guide-1").orElseThrow().getVotes()).isEqualTo(2);
        assertThat(designs.findById("guide-2").orElseThrow().getVotes()).isEqualTo(1);
    }

    @Test
    void shouldCount200VotesOf8ThreadsOnASpringDataEntityAndStoreWhatSpringDataStores() throws Exception {
        assertThat(converter.isEntity(BootDesign.class)).isTrue();
        BootDesign saved = designs.save(new BootDesign("d-1", "Aurora", CREATED));
        assertThat(saved.getSeqNoPrimaryTerm()).isNotNull();

        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                boolean throughRepository = t % 2 == 0;
                done.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    for (int i = 0; i < VOTES_EACH; i++) {
                        Outcome<BootDesign> voted = throughRepository
                                ? designs.update("d-1", BootDesign::vote)
                                : occ.update("boot-designs", "d-1", BootDesign.class, BootDesign::vote);
                        assertThat(voted.status()).isEqualTo(Outcome.Status.UPDATED);
                        assertThat(voted.value().getSeqNoPrimaryTerm().sequenceNumber())
                                .isEqualTo(voted.seqNo());
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

        BootDesign read = designs.findById("d-1").orElseThrow();
        assertThat(read.getId()).isEqualTo("d-1");
        assertThat(read.getName()).isEqualTo("Aurora");
        assertThat(read.getCreated()).isEqualTo(CREATED);
        assertThat(read.getVotes()).isEqualTo(THREADS * VOTES_EACH);

        // What Spring Data writes for the same entity, stored by Spring Data beside it: the same document, whole.
        read.setSeqNoPrimaryTerm(null);
        operations.save(read, IndexCoordinates.of("boot-designs-saved"));
        ObjectNode stored = source("boot-designs", "d-1");
        System.out.println("stored by esrel: " + stored);
        assertThat(stored).isEqualTo(source("boot-designs-saved", "d-1"));
        assertThat(stored.properties().stream().map(java.util.Map.Entry::getKey))
                .containsExactlyInAnyOrder("_class", "id", "design_name", "vote_count", "created");
    }

    /** The stored source, whole, as JSON text parsed by Jackson 2 (whichever mapper Boot gave the client). */
    private ObjectNode source(String index, String id) throws IOException {
        JsonData source = es.get(g -> g.index(index).id(id), JsonData.class).source();
        return (ObjectNode)
                new ObjectMapper().readTree(source.toJson(es._jsonpMapper()).toString());
    }
}
