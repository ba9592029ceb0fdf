package io.github.esrel.spring.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocRef;
import io.github.esrel.join.Join;
import io.github.esrel.join.JoinQuery;
import io.github.esrel.join.JoinResult;
import io.github.esrel.join.ParentWithChildren;
import io.github.esrel.occ.BulkOutcome;
import io.github.esrel.occ.BulkUpdate;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccException;
import io.github.esrel.occ.Outcome;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.view.MaterializedView;
import io.github.esrel.view.ViewPage;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.elasticsearch.client.elc.ElasticsearchTemplate;
import org.springframework.data.elasticsearch.core.mapping.IndexCoordinates;
import org.springframework.data.elasticsearch.core.query.SeqNoPrimaryTerm;

/**
 * Spring Data Elasticsearch entities through esrel, against a real node, beside Spring Data's own template on the same
 * client: what esrel stores is what {@code save} stores for the same entity (whole documents compared), fields the
 * entity does not map stay, the versions and {@code @Routing} work as Spring Data has them.
 */
@EsrelTest
class SpringDataEntitiesIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    static ElasticsearchClient es;
    static ElasticsearchTemplate template;
    static SpringDataDocumentConverter entities;
    static Occ occ;

    private static final Instant CREATED = Instant.parse("2026-12-04T10:15:30.123Z");

    @BeforeAll
    static void setUp() {
        es = cluster.client();
        template = new ElasticsearchTemplate(es);
        entities = SpringDataDocumentConverter.of(template, es);
        occ = Occ.of(b -> b.client(es).documentConverter(entities));
        for (Class<?> type : List.of(Design.class, Note.class, Author.class, Book.class, BookView.class)) {
            if (!template.indexOps(type).exists()) {
                template.indexOps(type).createWithMapping();
            }
        }
    }

    @Test
    void shouldCountEveryVoteOf8ThreadsAndStoreWhatSaveStores() throws Exception {
        template.save(new Design("d-votes", "Blue", 0, CREATED));
        // Another service's fields, which the entity does not map.
        es.update(
                u -> u.index("designs").id("d-votes").doc(Map.of("owner", Map.of("team", "paint", "level", 3))),
                ObjectNode.class);

        int threads = 8;
        int votesEach = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < votesEach; i++) {
                        Outcome<Design> voted = occ.update("designs", "d-votes", Design.class, Design::vote);
                        assertThat(voted.status()).isEqualTo(Outcome.Status.UPDATED);
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

        Design read = template.get("d-votes", Design.class);
        assertThat(read.getVotes()).isEqualTo(threads * votesEach);
        assertThat(read.getName()).isEqualTo("Blue");
        assertThat(read.getCreated()).isEqualTo(CREATED);

        // Spring Data stores the same entity elsewhere; with the other service's fields, that is esrel's document.
        read.setSeqNoPrimaryTerm(null);
        template.save(read, IndexCoordinates.of("designs-saved"));
        ObjectNode saved = source("designs-saved", "d-votes");
        saved.set(
                "owner",
                JsonNodeFactory.instance.objectNode().put("team", "paint").put("level", 3));
        assertThat(source("designs", "d-votes")).isEqualTo(saved);
        assertThat(saved.get("_class").asText()).isEqualTo(Design.class.getName());
        assertThat(saved.has("vote_count")).isTrue();
    }

    @Test
    void shouldCreateWithUpsertWhatSaveCreates() throws IOException {
        Outcome<Design> created = occ.upsert(
                "designs", "d-new", Design.class, () -> new Design("d-new", "Green", 0, CREATED), Design::vote);
        assertThat(created.status()).isEqualTo(Outcome.Status.CREATED);
        template.save(new Design("d-new", "Green", 1, CREATED), IndexCoordinates.of("designs-saved"));
        assertThat(source("designs", "d-new")).isEqualTo(source("designs-saved", "d-new"));
    }

    @Test
    void shouldFillSeqNoPrimaryTermOfWhatItReadsAndReturns() {
        template.save(new Design("d-seq", "Red", 0, CREATED));
        Outcome<Design> voted = occ.update("designs", "d-seq", Design.class, Design::vote);
        assertThat(voted.value().getSeqNoPrimaryTerm())
                .isEqualTo(new SeqNoPrimaryTerm(voted.seqNo(), voted.primaryTerm()));
        assertThat(voted.value().getId()).isEqualTo("d-seq");

        Design got = occ.get("designs", "d-seq", Design.class).orElseThrow().value();
        assertThat(got.getSeqNoPrimaryTerm()).isEqualTo(voted.value().getSeqNoPrimaryTerm());
        // Spring Data's own optimistic save accepts what esrel handed back: it is the stored version.
        got.setName("Crimson");
        template.save(got);
        assertThat(template.get("d-seq", Design.class).getName()).isEqualTo("Crimson");
    }

    @Test
    void shouldFillVersionAndRouteByTheRoutingAnnotation() throws IOException {
        template.save(new Note("n-1", "acme", "first"));
        ObjectNode routed = es.get(g -> g.index("notes").id("n-1").routing("acme"), ObjectNode.class)
                .source();
        assertThat(routed).isNotNull();

        DocRef note = DocRef.of("notes", "n-1").withRouting("acme");
        Outcome<Note> edited = occ.update(note, Note.class, n -> {
            n.setText("second");
            return n;
        });
        assertThat(edited.status()).isEqualTo(Outcome.Status.UPDATED);
        assertThat(edited.value().getVersion()).isEqualTo(edited.version());
        assertThat(template.get("n-1", Note.class, IndexCoordinates.of("notes")).getText())
                .isEqualTo("second");

        // Moving it to another tenant would route it to another shard than the copy read: refused, nothing written.
        assertThatThrownBy(() -> occ.update(note, Note.class, n -> {
                    n.setTenant("other");
                    return n;
                }))
                .isInstanceOf(OccException.class)
                .hasMessageContaining("[other]");
        assertThat(es.get(g -> g.index("notes").id("n-1").routing("acme"), ObjectNode.class)
                        .source()
                        .get("tenant")
                        .asText())
                .isEqualTo("acme");
    }

    @Test
    void shouldBulkUpdateEntitiesAsSaveStoresThem() throws IOException {
        List<String> ids = List.of("b-1", "b-2", "b-3");
        for (String id : ids) {
            template.save(new Design(id, "Bulk " + id, 10, CREATED));
        }
        BulkUpdate<Design> bulk = occ.bulk(Design.class);
        for (String id : ids) {
            bulk.update("designs", id, Design::vote).update("designs", id, Design::vote);
        }
        BulkOutcome<Design> outcome = bulk.execute();
        assertThat(outcome.items()).allMatch(o -> o.status() == Outcome.Status.UPDATED);
        // Each value handed back carries the versions of the write that stored it.
        assertThat(outcome.items())
                .allMatch(o -> new SeqNoPrimaryTerm(o.seqNo(), o.primaryTerm())
                        .equals(o.value().getSeqNoPrimaryTerm()));
        for (String id : ids) {
            Design read = template.get(id, Design.class);
            assertThat(read.getVotes()).isEqualTo(12);
            read.setSeqNoPrimaryTerm(null);
            template.save(read, IndexCoordinates.of("designs-saved"));
            assertThat(source("designs", id)).isEqualTo(source("designs-saved", id));
        }
    }

    @Test
    void shouldJoinTypedParentsAndChildren() throws IOException {
        List<Author> authors =
                List.of(new Author("a-1", "Ada", "NO"), new Author("a-2", "Bo", "SE"), new Author("a-3", "Cy", "NO"));
        List<Book> books = List.of(
                new Book("k-1", "One", "a-1", 5),
                new Book("k-2", "Two", "a-1", 9),
                new Book("k-3", "Three", "a-2", 7),
                new Book("k-4", "Four", "a-3", 1));
        template.save(authors);
        template.save(books);
        template.indexOps(Author.class).refresh();
        template.indexOps(Book.class).refresh();

        Join join = Join.of(b -> b.client(es).documentConverter(entities));
        Query norwegians = Query.of(q -> q.term(t -> t.field("country").value("NO")));
        JoinResult<Author, Book> r = join.childrenOf(JoinQuery.of(
                        Author.class,
                        Book.class,
                        b -> b.parents("authors", norwegians).children("books", "author_id")))
                .orThrow();
        assertThat(r.parents())
                .extracting(p -> p.parent().value())
                .containsExactlyInAnyOrder(authors.get(0), authors.get(2));
        for (ParentWithChildren<Author, Book> p : r.parents()) {
            assertThat(p.children())
                    .extracting(c -> c.value())
                    .containsExactlyInAnyOrderElementsOf(books.stream()
                            .filter(b -> b.authorId().equals(p.parent().id()))
                            .toList());
        }

        JoinResult<Author, Book> where = join.childrenWhereParent(JoinQuery.of(
                        Author.class,
                        Book.class,
                        b -> b.parents("authors", norwegians).children("books", "author_id")))
                .orThrow();
        assertThat(where.pairs())
                .extracting(p -> p.child().value())
                .containsExactlyInAnyOrder(books.get(0), books.get(1), books.get(3));
    }

    @Test
    void shouldComposeViewsOfEntitiesAndStoreTheViewEntityAsSaveStoresIt() throws IOException {
        template.save(new Author("va-1", "Vigdis", "IS"));
        template.save(new Book("vb-1", "Saga", "va-1", 2));
        MaterializedView<Book, Author> views = MaterializedView.of(
                Book.class,
                Author.class,
                v -> v.client(es)
                        .name("book-author")
                        .sourceIndex("books")
                        .parentIndex("authors")
                        .parentIdField("author_id")
                        .viewIndex("book-views")
                        .compose((book, author) ->
                                new BookView(book.id(), book.title(), author == null ? null : author.name()))
                        .documentConverter(entities));
        views.ensureStateIndex();
        views.rebuild("vb-1");

        // The view as stored, without esrel's bookkeeping, is what Spring Data stores for the composed entity.
        template.save(new BookView("vb-1", "Saga", "Vigdis"), IndexCoordinates.of("book-views-saved"));
        assertThat(views.get("vb-1").orElseThrow().document()).isEqualTo(source("book-views-saved", "vb-1"));

        // Searching the view hands back the source entities, read by Spring Data's converter.
        es.indices().refresh(r -> r.index("book-views"));
        ViewPage<Book> page = views.search(
                s -> s.query(q -> q.term(t -> t.field("author_name").value("Vigdis"))));
        assertThat(page.hits()).extracting(h -> h.value()).containsExactly(new Book("vb-1", "Saga", "va-1", 2));
    }

    /** The stored source, whole. */
    static ObjectNode source(String index, String id) throws IOException {
        return es.get(g -> g.index(index).id(id).refresh(true), ObjectNode.class)
                .source();
    }
}
