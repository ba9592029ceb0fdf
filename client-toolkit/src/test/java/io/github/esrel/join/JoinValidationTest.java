package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Builders validate their input with messages that name the value; cursors survive a round trip as text. */
class JoinValidationTest {

    record User(String name) {}

    record Post(String title) {}

    /** Points nowhere and is never called: the checks fail before any request. */
    private final RestClient rest =
            RestClient.builder(new HttpHost("127.0.0.1", 9)).build();

    private final ElasticsearchClient es =
            new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));

    @AfterEach
    void close() throws IOException {
        rest.close();
    }

    @Test
    void shouldRequireBothSidesOfAJoin() {
        assertThatThrownBy(() -> JoinQuery.of(User.class, Post.class, b -> b.children("posts", "user_id")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("parents(index, query)");
        assertThatThrownBy(() -> JoinQuery.of(User.class, Post.class, b -> b.parents("users", q -> q.matchAll(m -> m))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("children(index, keyField)");
    }

    @Test
    void shouldRejectBadJoinQueryValues() {
        JoinQuery.Builder<User, Post> b = JoinQuery.builder(User.class, Post.class);
        assertThatThrownBy(() -> b.childrenPerPage(0))
                .hasMessageContaining("childrenPerPage must be at least 1, got 0");
        assertThatThrownBy(() -> b.parentsPerPage(0)).hasMessageContaining("parentsPerPage must be at least 1, got 0");
        assertThatThrownBy(() -> b.from(-1)).hasMessageContaining("from must not be negative");
        assertThatThrownBy(() -> b.childrenPerParent(-1)).hasMessageContaining("childrenPerParent");
        assertThatThrownBy(() -> b.children(" ", "user")).hasMessageContaining("child index cannot be blank");
        assertThatThrownBy(() -> b.children("posts", "")).hasMessageContaining("child key field cannot be blank");
        assertThatThrownBy(() -> b.parentKey(null)).hasMessageContaining("parent key field");
    }

    @Test
    void shouldDefaultToAnIdKeyedLeftJoinOfTenByScore() {
        JoinQuery<User, Post> q = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents("users", Query.of(x -> x.matchAll(m -> m))).children("posts", "user_id"));
        assertThat(q.parentKeyIsId()).isTrue();
        assertThat(q.childrenPerPage()).isEqualTo(10);
        assertThat(q.parentsPerPage()).isEqualTo(10);
        assertThat(q.childrenPerParent()).isEqualTo(3);
        assertThat(q.includeChildless()).isTrue();
        assertThat(q.parentFetch()).isEqualTo(JoinQuery.ParentFetch.EAGER);
        assertThat(q.childSort()).isEmpty();
        JoinQuery<User, Post> copy =
                q.toBuilder().childrenPerPage(20).parentsPerPage(30).build();
        assertThat(copy.childrenPerPage()).isEqualTo(20);
        assertThat(copy.parentsPerPage()).isEqualTo(30);
        assertThat(copy.childIndex()).isEqualTo("posts");
    }

    @Test
    void shouldRejectBadJoinSettings() {
        assertThatThrownBy(() -> Join.builder().maxParents(0)).hasMessageContaining("maxParents must be in 1..");
        assertThatThrownBy(() -> Join.builder().maxParents(Join.MAX_PARENTS_LIMIT + 1))
                .hasMessageContaining("maxParents");
        assertThatThrownBy(() -> Join.builder().pageSize(0)).hasMessageContaining("pageSize");
        assertThatThrownBy(() -> Join.builder().maxTermsCount(0)).hasMessageContaining("maxTermsCount");
        assertThatThrownBy(() -> Join.builder().pitKeepAlive(Duration.ofMillis(10)))
                .hasMessageContaining("pitKeepAlive");
        assertThatThrownBy(() -> Join.builder().build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client cannot be null");
    }

    @Test
    void shouldRejectBadGroupQueries() {
        assertThatThrownBy(() -> GroupQuery.of(Post.class, g -> g.field("user")))
                .hasMessageContaining("index is missing");
        assertThatThrownBy(() -> GroupQuery.of(Post.class, g -> g.index("posts")))
                .hasMessageContaining("group field is missing");
        assertThatThrownBy(() -> GroupQuery.builder(Post.class).groups(0))
                .hasMessageContaining("groups must be at least 1");
        assertThatThrownBy(() -> GroupQuery.builder(Post.class).perGroup(0)).hasMessageContaining("perGroup");
        assertThatThrownBy(() -> Grouping.builder().maxBuckets(70_000))
                .hasMessageContaining("maxBuckets must be in 1..65536");
    }

    @Test
    void shouldRoundTripACursorThroughItsToken() {
        JoinCursor c = new JoinCursor(
                "pit/id==",
                List.of(
                        FieldValue.of(1.25),
                        FieldValue.of(7L),
                        FieldValue.of("x"),
                        FieldValue.NULL,
                        FieldValue.of(true)),
                0);
        JoinCursor back = JoinCursor.parse(c.token());
        assertThat(back).isEqualTo(c);
        assertThat(back.searchAfter().get(0).isDouble()).isTrue();
        assertThat(back.searchAfter().get(1).isLong()).isTrue();
        assertThat(back.pitId()).isEqualTo("pit/id==");
        assertThat(c.token()).doesNotContain("/", "+", "=");

        JoinCursor noPit = new JoinCursor(null, List.of(), 20);
        assertThat(JoinCursor.parse(noPit.token())).isEqualTo(noPit);
        assertThat(JoinCursor.parse(noPit.token()).offset()).isEqualTo(20);

        JoinCursor children = JoinCursor.children("pit", List.of(FieldValue.of(3L)), 0);
        assertThat(JoinCursor.parse(children.token()))
                .isEqualTo(children)
                .isNotEqualTo(new JoinCursor("pit", List.of(FieldValue.of(3L)), 0));
    }

    @Test
    void shouldRefuseACursorOfTheOtherKindOfJoin() {
        Join join = Join.of(b -> b.client(es));
        JoinQuery<User, Post> q = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents("users", Query.of(x -> x.matchAll(m -> m))).children("posts", "user_id"));
        assertThatThrownBy(() -> join.childrenWhereParent(q, new JoinCursor("pit", List.of(), 10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "this cursor continues childrenOf, not childrenWhereParent: pass the next() of a childrenWhereParent result");
        assertThatThrownBy(() -> join.childrenOf(q, JoinCursor.children("pit", List.of(), 10)))
                .hasMessageContaining("this cursor continues childrenWhereParent, not childrenOf");
    }

    @Test
    void shouldRejectATokenThatIsNotACursor() {
        assertThatThrownBy(() -> JoinCursor.parse("bm90IGEgY3Vyc29y"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a join cursor token");
        assertThatThrownBy(() -> JoinCursor.parse("%%%")).isInstanceOf(IllegalArgumentException.class);
    }
}
