package io.github.esrel;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.ApplicationMappers.Money;
import io.github.esrel.join.Join;
import io.github.esrel.join.JoinQuery;
import io.github.esrel.join.JoinResult;
import io.github.esrel.join.ParentWithChildren;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.BulkOutcome;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.occ.Versioned;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.view.MaterializedView;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The application's JSON mapper on a real node (issue 19): documents esrel reads and writes for the application keep
 * the application's settings (snake_case names, a module that writes money as text, longs as strings), with a Jackson
 * 2 mapper and with a mapper esrel knows only as a JSON-P mapper (as Spring Boot 4's Jackson 3 one); esrel's own
 * documents (tree locks with and without the plugin) do not take those settings on. Each case is checked against the
 * stored JSON, read with a plain client.
 */
@EsrelTest
class ApplicationMapperIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    record Shirt(String designName, long voteCount, Money price) {
        Shirt vote() {
            return new Shirt(designName, voteCount + 1, price);
        }
    }

    record Author(String fullName) {}

    record Post(String postTitle, String authorId) {}

    record Photo(String photoTitle, String ownerId) {}

    record PhotoView(String photoTitle, String ownerName) {}

    static Stream<Arguments> mappers() {
        JacksonJsonpMapper jackson = new JacksonJsonpMapper(ApplicationMappers.snakeCase());
        return Stream.of(
                Arguments.of(Named.of("jackson2", jackson)),
                Arguments.of(Named.of("json-p", new ApplicationMappers.Foreign(jackson))));
    }

    private static ElasticsearchClient application(JsonpMapper mapper) {
        return new ElasticsearchClient(new RestClientTransport(cluster.restClient(), mapper));
    }

    @AfterAll
    static void cleanUp() throws IOException {
        cluster.client()
                .indices()
                .delete(d -> d.index("mapper-*").ignoreUnavailable(true).allowNoIndices(true));
    }

    @ParameterizedTest
    @MethodSource("mappers")
    void shouldReadAndWriteOccDocumentsWithTheApplicationsMapper(JsonpMapper mapper) throws Exception {
        String index = "mapper-shirts-" + name(mapper);
        ElasticsearchClient app = application(mapper);
        Occ occ = Occ.of(b -> b.client(app));
        Shirt tux = new Shirt("tux", 0, Money.of("12.50", "EUR"));
        assertThat(occ.upsert(index, "1", Shirt.class, () -> tux, Shirt::vote).status())
                .isEqualTo(Outcome.Status.CREATED);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                writers.add(pool.submit(() -> {
                    for (int n = 0; n < 10; n++) {
                        occ.update(index, "1", Shirt.class, Shirt::vote).orThrow();
                    }
                    return null;
                }));
            }
            for (Future<?> f : writers) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        BulkOutcome<Shirt> bulk = occ.bulk(Shirt.class)
                .update(index, "1", Shirt::vote)
                .update(index, "1", Shirt::vote)
                .execute();
        assertThat(bulk.complete()).isTrue();
        ObjectNode stored = stored(index, "1");
        assertThat(stored.toString())
                .as("as the application's mapper writes it")
                .isEqualTo("{\"design_name\":\"tux\",\"vote_count\":\"83\",\"price\":\"12.50 EUR\"}");
        Versioned<Shirt> read = occ.get(index, "1", Shirt.class).orElseThrow();
        assertThat(read.value()).isEqualTo(new Shirt("tux", 83, Money.of("12.50", "EUR")));
    }

    @ParameterizedTest
    @MethodSource("mappers")
    void shouldJoinTheApplicationsTypes(JsonpMapper mapper) throws Exception {
        String authors = "mapper-authors-" + name(mapper);
        String posts = "mapper-posts-" + name(mapper);
        ElasticsearchClient app = application(mapper);
        app.index(i -> i.index(authors).id("a1").document(new Author("Ann Lee")));
        app.index(i -> i.index(authors).id("a2").document(new Author("Bo Ek")));
        app.indices().create(c -> c.index(posts).mappings(m -> m.properties("author_id", p -> p.keyword(k -> k))));
        app.index(i -> i.index(posts).id("p1").document(new Post("first", "a1")));
        app.index(i -> i.index(posts).id("p2").document(new Post("second", "a1")));
        app.index(i -> i.index(posts).id("p3").document(new Post("third", "a2")));
        app.indices().refresh(r -> r.index(authors + "," + posts));
        Join join = Join.of(b -> b.client(app));
        JoinQuery<Author, Post> q = JoinQuery.of(
                Author.class,
                Post.class,
                j -> j.parents(authors, p -> p.match(m -> m.field("full_name").query("Ann")))
                        .children(posts, "author_id"));
        for (JoinResult<Author, Post> r : List.of(join.childrenOf(q), join.childrenWhereParent(q))) {
            assertThat(r.complete()).isTrue();
            assertThat(r.children()).extracting(Post::postTitle).containsExactlyInAnyOrder("first", "second");
            assertThat(r.children()).extracting(Post::authorId).containsOnly("a1");
        }
        ParentWithChildren<Author, Post> ann = join.childrenOf(q).parents().get(0);
        assertThat(ann.parent().value()).isEqualTo(new Author("Ann Lee"));
    }

    @ParameterizedTest
    @MethodSource("mappers")
    void shouldComposeViewsOfTheApplicationsTypes(JsonpMapper mapper) throws Exception {
        String n = name(mapper);
        ElasticsearchClient app = application(mapper);
        app.index(i -> i.index("mapper-owners-" + n).id("u1").document(new Author("Ann Lee")));
        app.index(i -> i.index("mapper-photos-" + n).id("p1").document(new Photo("sunset", "u1")));
        MaterializedView<Photo, Author> views = MaterializedView.of(
                Photo.class,
                Author.class,
                v -> v.client(app)
                        .name("mapper-photo-owner-" + n)
                        .sourceIndex("mapper-photos-" + n)
                        .parentIndex("mapper-owners-" + n)
                        .parentIdField("owner_id")
                        .viewIndex("mapper-photo-views-" + n)
                        .stateIndex("mapper-view-state-" + n)
                        .compose((photo, owner) ->
                                new PhotoView(photo.photoTitle(), owner == null ? null : owner.fullName())));
        views.ensureStateIndex();
        assertThat(views.rebuild("p1").written()).isEqualTo(1);
        ObjectNode view = stored("mapper-photo-views-" + n, "p1");
        assertThat(view.get("photo_title").asText()).isEqualTo("sunset");
        assertThat(view.get("owner_name").asText()).isEqualTo("Ann Lee");
    }

    @ParameterizedTest
    @MethodSource("mappers")
    void shouldKeepEsrelsOwnLockDocumentsOffTheApplicationsMapper(JsonpMapper mapper) throws Exception {
        ElasticsearchClient app = application(mapper);
        for (TreeLocks.Backend backend : List.of(TreeLocks.Backend.DOCUMENTS, TreeLocks.Backend.AUTO)) {
            String index = "mapper-locks-" + name(mapper) + "-" + backend.name().toLowerCase(java.util.Locale.ROOT);
            app.indices().create(c -> c.index(index));
            try (TreeLocks locks =
                    TreeLocks.of(b -> b.client(app).index(index).owner("w1").backend(backend))) {
                long first;
                try (TreeLock lock = locks.acquire("/a/b", LockMode.EXCLUSIVE).orThrow()) {
                    first = lock.token();
                    assertThat(locks.acquire("/a", LockMode.EXCLUSIVE).acquired())
                            .isFalse();
                }
                try (TreeLock again = locks.acquire("/a", LockMode.EXCLUSIVE).orThrow()) {
                    assertThat(again.token()).isGreaterThan(first);
                }
            }
        }
    }

    private static String name(JsonpMapper mapper) {
        return mapper instanceof JacksonJsonpMapper ? "jackson2" : "jsonp";
    }

    private static ObjectNode stored(String index, String id) throws IOException {
        return cluster.client()
                .get(g -> g.index(index).id(id), ObjectNode.class)
                .source();
    }
}
