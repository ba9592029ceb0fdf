package io.github.esrel.spring.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import io.github.esrel.join.Join;
import io.github.esrel.join.JoinResult;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.elasticsearch.client.elc.ElasticsearchTemplate;
import org.springframework.data.elasticsearch.core.ElasticsearchOperations;
import org.springframework.data.elasticsearch.repository.ElasticsearchRepository;
import org.springframework.data.elasticsearch.repository.config.EnableElasticsearchRepositories;

/**
 * Spring Data repositories that extend {@link EsrelRepository}, in a plain Spring context (no Boot): Spring Data finds
 * the fragment through {@code spring.factories}, and the repositories update with esrel's retries and join over a
 * declared {@link EntityRelation}, on a real node.
 */
@EsrelTest
class EsrelRepositoryIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    interface DesignRepository extends ElasticsearchRepository<Design, String>, EsrelRepository<Design, String> {}

    interface AuthorRepository extends ElasticsearchRepository<Author, String>, EsrelRepository<Author, String> {}

    interface BookRepository extends ElasticsearchRepository<Book, String>, EsrelRepository<Book, String> {}

    /** The application: Spring Data's template, esrel's Occ and Join on Spring Data's converter, one relation. */
    @Configuration
    @EnableElasticsearchRepositories(basePackageClasses = EsrelRepositoryIT.class, considerNestedRepositories = true)
    static class Application {

        @Bean(destroyMethod = "") // testenv's, closed by testenv
        ElasticsearchClient client() {
            return cluster.client();
        }

        @Bean
        ElasticsearchTemplate elasticsearchTemplate(ElasticsearchClient client) {
            return new ElasticsearchTemplate(client);
        }

        @Bean
        SpringDataDocumentConverter entities(ElasticsearchOperations operations, ElasticsearchClient client) {
            return SpringDataDocumentConverter.of(operations, client);
        }

        @Bean
        Occ occ(ElasticsearchClient client, SpringDataDocumentConverter entities) {
            return Occ.of(b -> b.client(client).documentConverter(entities));
        }

        @Bean
        Join join(ElasticsearchClient client, SpringDataDocumentConverter entities) {
            return Join.of(b -> b.client(client).documentConverter(entities));
        }

        @Bean
        EntityRelation<Author, Book> booksByAuthor() {
            return EntityRelation.of(Author.class, Book.class, "authorId");
        }
    }

    static AnnotationConfigApplicationContext context;
    static DesignRepository designs;
    static AuthorRepository authors;
    static BookRepository books;

    @BeforeAll
    static void start() {
        context = new AnnotationConfigApplicationContext(Application.class);
        designs = context.getBean(DesignRepository.class);
        authors = context.getBean(AuthorRepository.class);
        books = context.getBean(BookRepository.class);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void shouldCountEveryVoteOf8ThreadsThroughTheRepository() throws Exception {
        designs.save(new Design("r-votes", "Yellow", 0, Instant.parse("2026-12-01T00:00:00Z")));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        assertThat(designs.update("r-votes", Design::vote).status())
                                .isEqualTo(Outcome.Status.UPDATED);
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
        Design read = designs.findById("r-votes").orElseThrow();
        assertThat(read.getVotes()).isEqualTo(200);
        assertThat(read.getName()).isEqualTo("Yellow");
        assertThat(read.getCreated()).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
    }

    @Test
    void shouldUpsertAndReportWhatItDid() {
        Outcome<Design> created =
                designs.upsert("r-upsert", () -> new Design("r-upsert", "Teal", 0, Instant.EPOCH), Design::vote);
        assertThat(created.status()).isEqualTo(Outcome.Status.CREATED);
        assertThat(designs.upsert("r-upsert", () -> new Design(), Design::vote).status())
                .isEqualTo(Outcome.Status.UPDATED);
        Outcome<Design> tried = designs.tryUpdate("r-upsert", Design::vote);
        assertThat(tried.status()).isEqualTo(Outcome.Status.UPDATED);
        assertThat(tried.value().getVotes()).isEqualTo(3);
        assertThat(tried.value().getSeqNoPrimaryTerm().sequenceNumber()).isEqualTo(tried.seqNo());
        assertThat(designs.update("r-missing", Design::vote).status()).isEqualTo(Outcome.Status.NOT_FOUND);
        assertThat(designs.findById("r-upsert").orElseThrow().getVotes()).isEqualTo(3);
    }

    @Test
    void shouldJoinOverTheDeclaredRelationBothWays() {
        authors.saveAll(List.of(new Author("ra-1", "Di", "DK"), new Author("ra-2", "Ed", "FI")));
        books.saveAll(List.of(
                new Book("rb-1", "Alpha", "ra-1", 3),
                new Book("rb-2", "Beta", "ra-1", 4),
                new Book("rb-3", "Gamma", "ra-2", 8)));
        Query danes = Query.of(q -> q.term(t -> t.field("country").value("DK")));

        JoinResult<Author, Book> theirs =
                authors.childrenOf(Book.class, danes, UnaryOperator.identity()).orThrow();
        assertThat(theirs.parents()).hasSize(1);
        assertThat(theirs.parents().get(0).parent().value()).isEqualTo(new Author("ra-1", "Di", "DK"));
        assertThat(theirs.parents().get(0).children())
                .extracting(c -> c.value().title())
                .containsExactlyInAnyOrder("Alpha", "Beta");

        JoinResult<Author, Book> byDanes = books.childrenWhereParent(
                        Author.class,
                        danes,
                        b -> b.childQuery(
                                q -> q.range(r -> r.number(n -> n.field("likes").gte(4.0)))))
                .orThrow();
        assertThat(byDanes.pairs()).extracting(p -> p.child().value().title()).containsExactly("Beta");

        assertThatThrownBy(() -> designs.childrenOf(Book.class, danes, UnaryOperator.identity()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no EntityRelation beans between " + Design.class.getName());
    }
}
