package io.github.esrel.docs;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.github.esrel.denorm.PropagationResult;
import io.github.esrel.denorm.Propagator;
import io.github.esrel.denorm.Relation;
import io.github.esrel.join.Group;
import io.github.esrel.join.GroupQuery;
import io.github.esrel.join.Grouping;
import io.github.esrel.join.Groups;
import io.github.esrel.join.Join;
import io.github.esrel.join.JoinQuery;
import io.github.esrel.join.JoinResult;
import io.github.esrel.join.Pair;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.view.MaterializedView;
import io.github.esrel.view.ViewDoc;
import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** docs/relationships.md. */
@EsrelTest
class RelationshipsGuideIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    /** A user: the parent. */
    record User(String name, String country) {}

    /** A post: the child, with a copy of its author's name (and the propagation's stamp, which it does not map). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Post(String user_id, String title, String user_name) {}

    /** A photo: the source of a view. */
    record Photo(String user_id, String caption) {}

    @BeforeAll
    static void writeUsersAndPosts() throws IOException {
        ElasticsearchClient es = cluster.client();
        es.indices()
                .create(c -> c.index("guide-posts")
                        .mappings(m -> m.properties("user_id", p -> p.keyword(k -> k))
                                .properties("title", p -> p.keyword(k -> k))));
        es.indices().create(c -> c.index("guide-users").mappings(m -> m.properties("country", p -> p.keyword(k -> k))));
        BulkRequest.Builder bulk = new BulkRequest.Builder().refresh(Refresh.True);
        bulk.operations(o -> o.index(i -> i.index("guide-users").id("u1").document(new User("John", "NO"))));
        bulk.operations(o -> o.index(i -> i.index("guide-users").id("u2").document(new User("Mary", "SE"))));
        for (int n = 0; n < 3; n++) {
            String title = "post " + n;
            bulk.operations(o -> o.index(i -> i.index("guide-posts").document(new Post("u1", title, "John"))));
            bulk.operations(o -> o.index(i -> i.index("guide-posts").document(new Post("u2", title, "Mary"))));
        }
        assertThat(es.bulk(bulk.build()).errors()).isFalse();
    }

    @Test
    void shouldJoinBothWays(ElasticsearchClient es) {
        // tag::join[]
        Join join = Join.of(b -> b.client(es)); // at most 10,000 parents a call, then it tells you to denormalize
        JoinQuery<User, Post> byNorwegians = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents(
                                "guide-users",
                                p -> p.term(t -> t.field("country").value("NO")))
                        .children("guide-posts", "user_id") // the child's field that holds the parent's _id
                        .childrenPerPage(20));
        JoinResult<User, Post> page = join.childrenWhereParent(byNorwegians).orThrow();
        for (Pair<User, Post> p : page.pairs()) {
            System.out.println(
                    p.child().value().title() + " by " + p.parent().value().name());
        }
        JoinResult<User, Post> johns = join.childrenOf(JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents("guide-users", p -> p.match(m -> m.field("name").query("John")))
                        .children("guide-posts", "user_id")));
        // end::join[]
        assertThat(page.pairs())
                .hasSize(3)
                .allSatisfy(p -> assertThat(p.parent().id()).isEqualTo("u1"));
        assertThat(johns.parents()).hasSize(1);
    }

    @Test
    void shouldCollapseGroups(ElasticsearchClient es) {
        // tag::collapse[]
        Groups<Post> byAuthor = Grouping.of(b -> b.client(es))
                .collapse(GroupQuery.of(
                        Post.class,
                        g -> g.index("guide-posts")
                                .query(q -> q.matchAll(m -> m))
                                .field("user_id")
                                .groups(10) // ten authors
                                .perGroup(2))); // the best two posts of each
        for (Group<Post> author : byAuthor.groups()) {
            System.out.println(author.key() + ": " + author.total() + " posts, " + author.values());
        }
        // end::collapse[]
        assertThat(byAuthor.groups())
                .hasSize(2)
                .allSatisfy(g -> assertThat(g.values()).hasSize(2));
    }

    @Test
    void shouldPropagateARenamedAuthor(ElasticsearchClient es) throws IOException {
        es.indices().create(c -> c.index("guide-books").mappings(m -> m.properties("user_id", p -> p.keyword(k -> k))));
        es.index(i -> i.index("guide-authors").id("u3").refresh(Refresh.True).document(new User("Kim", "DK")));
        es.index(i -> i.index("guide-books").id("k1").refresh(Refresh.True).document(new Post("u3", "hello", "Kim")));
        // tag::propagate[]
        Relation author = Relation.of(r -> r.name("post-author")
                .parentIndex("guide-authors")
                .childIndex("guide-books")
                .parentIdField("user_id") // the child's field that holds the parent's _id
                .copy("name", "user_name")); // parent field -> child field
        Propagator propagator = Propagator.of(b -> b.client(es).relation(author));

        es.index(i -> i.index("guide-authors").id("u3").document(new User("Kim Larsen", "DK"))); // the edit
        PropagationResult result = propagator.propagate("u3"); // every book of u3 now says "Kim Larsen"
        // end::propagate[]
        assertThat(result.complete()).as("%s", result).isTrue();
        assertThat(es.get(g -> g.index("guide-books").id("k1"), Post.class)
                        .source()
                        .user_name())
                .isEqualTo("Kim Larsen");
    }

    @Test
    void shouldKeepAViewOfPhotosWithTheirUsers(ElasticsearchClient es) throws IOException {
        es.indices().create(c -> c.index("guide-photos"));
        // tag::view[]
        MaterializedView<Photo, User> views = MaterializedView.of(
                Photo.class,
                User.class,
                v -> v.client(es)
                        .name("photo-user")
                        .sourceIndex("guide-photos")
                        .parentIndex("guide-users")
                        .parentIdField("user_id")
                        .viewIndex("guide-photo-user-view")
                        .copyParent("country", "user_country"));
        views.changeSource(
                "p1",
                () -> es.index(i -> i.index("guide-photos") // an intent first, then the write,
                        .id("p1")
                        .document(new Photo("u1", "fjord")))); // then the view document rebuilt whole
        views.repair(); // after a crash: replay the intents left behind
        // end::view[]
        ViewDoc view = views.get("p1").orElseThrow();
        assertThat(view.document().get("user_country").asText()).isEqualTo("NO");
        assertThat(view.document().get("caption").asText()).isEqualTo("fjord");
    }
}
