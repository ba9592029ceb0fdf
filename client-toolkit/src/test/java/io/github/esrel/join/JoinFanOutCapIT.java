package io.github.esrel.join;

import static io.github.esrel.join.Blog.bulk;
import static io.github.esrel.join.Blog.createPosts;
import static io.github.esrel.join.Blog.createUsers;
import static io.github.esrel.join.BlogQuestions.popularByWomen;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.join.Blog.Post;
import io.github.esrel.join.Blog.User;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fan-out cap ({@code maxParents}) and seed 003's trap, a broad parent condition with a selective child
 * condition: a join over the cap stops before it ships any key, and {@link Join#childrenOf} streams parents up to the
 * cap, page after page, saying when few of them have matching children.
 *
 * <p>On the node the join ITs share, with its {@link Blog} (written once for all of them).
 */
@EsrelTest
class JoinFanOutCapIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ElasticsearchClient es;

    @BeforeAll
    static void blog() throws IOException {
        es = cluster.client();
        Blog.seed(es);
    }

    @Test
    void shouldStopBeforeShippingAnyKeyWhenMoreParentsMatchThanTheCap() {
        Join join = Join.of(b -> b.client(es).maxParents(5));
        JoinResult<User, Post> r = join.childrenWhereParent(
                popularByWomen(b -> b.childrenPerPage(20).plan(JoinQuery.Plan.KEYS_FIRST)));
        assertThat(r.status()).isEqualTo(JoinResult.Status.CAP_EXCEEDED);
        assertThat(r.pairs()).isEmpty();
        assertThat(r.keysShipped()).isZero();
        assertThat(r.roundTrips()).isEqualTo(1);
        assertThat(r.parentsMatched()).isGreaterThan(5);
        assertThat(r.advice()).contains("maxParents=5", "Denormalize", "[posts]", "[users]");
        assertThatThrownBy(r::orThrow)
                .isInstanceOf(JoinCapExceededException.class)
                .hasMessageContaining("Denormalize")
                .satisfies(
                        e -> assertThat(((JoinCapExceededException) e).result()).isSameAs(r));
    }

    @Test
    void shouldStreamParentsUpToTheCapAndSayWhenFewHaveMatchingChildren() throws IOException {
        // Seed 003: 5,000 users, only one of them has popular photos, 20 photos wanted.
        int n = 5_000;
        int lucky = 4_321;
        createUsers(es, "trap-users", 2, Map.of());
        createPosts(es, "trap-photos", 2, Map.of());
        Map<String, Object> trapUsers = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            trapUsers.put(
                    "t" + i,
                    new User("User " + i, i == lucky || i % 2 == 0 ? "female" : "male", String.format("t%05d", i), i));
        }
        bulk(es, "trap-users", trapUsers);
        Map<String, Object> photos = new LinkedHashMap<>();
        for (int j = 0; j < 600; j++) {
            int owner = (j * 97) % n == lucky ? lucky + 1 : (j * 97) % n;
            photos.put("x" + j, new Post("photo", "t" + owner, "", 1, j, null));
        }
        for (int j = 0; j < 3; j++) {
            photos.put("hot" + j, new Post("photo", "t" + lucky, "", 100 + j, 10_000 + j, null));
        }
        bulk(es, "trap-photos", photos);

        JoinQuery<User, Post> q = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents("trap-users", Query.of(x -> x.matchAll(m -> m)))
                        .parentSort(SortOptions.of(s -> s.field(f -> f.field("n"))))
                        .children("trap-photos", "user_id")
                        // Built by the client-line seam: range builders' field(...) does not link on every client.
                        .childQuery(ClientApi.range("popularity", true, 100))
                        .includeChildless(false)
                        .parentsPerPage(20));
        Join capped = Join.of(b -> b.client(es).maxParents(2_000).pageSize(500));

        JoinResult<User, Post> first = capped.childrenOf(q);
        assertThat(first.status()).isEqualTo(JoinResult.Status.PARTIAL);
        assertThat(first.parents()).isEmpty();
        assertThat(first.parentsRead()).isEqualTo(2_000);
        assertThat(first.advice()).contains("maxParents=2,000", "Denormalize", "[trap-photos]");
        assertThatThrownBy(first::orThrow).isInstanceOf(JoinCapExceededException.class);
        // 4 pages of 500 parents, each with its children search, and the point in time opened for page 2.
        assertThat(first.roundTrips()).as(first.requests().toString()).isEqualTo(9);

        JoinResult<User, Post> second = capped.childrenOf(q, first.next().orElseThrow());
        assertThat(second.status()).isEqualTo(JoinResult.Status.PARTIAL);
        assertThat(second.parentsRead()).isEqualTo(2_000);
        JoinResult<User, Post> third = capped.childrenOf(q, second.next().orElseThrow());
        assertThat(third.status()).isEqualTo(JoinResult.Status.COMPLETE);
        assertThat(third.parentsRead()).isEqualTo(1_000);
        assertThat(third.next()).isEmpty();
        assertThat(third.parents()).hasSize(1);
        assertThat(third.parents().get(0).parent().value().n()).isEqualTo(lucky);
        assertThat(third.parents().get(0).totalChildren()).isEqualTo(3);

        // The same question with the default cap reads all 5,000 parents in one call.
        JoinResult<User, Post> whole = Join.of(b -> b.client(es)).childrenOf(q);
        assertThat(whole.status()).isEqualTo(JoinResult.Status.COMPLETE);
        assertThat(whole.parentsRead()).isEqualTo(n);
        assertThat(whole.parents()).hasSize(1);

        // The other direction ("popular photos of female users") is refused at once over the cap...
        JoinQuery<User, Post> women = q.toBuilder()
                .plan(JoinQuery.Plan.KEYS_FIRST)
                .parents("trap-users", x -> x.term(t -> t.field("gender").value("female")))
                .build();
        JoinResult<User, Post> refused =
                Join.of(b -> b.client(es).maxParents(1_000)).childrenWhereParent(women);
        assertThat(refused.status()).isEqualTo(JoinResult.Status.CAP_EXCEEDED);
        assertThat(refused.roundTrips()).isEqualTo(1);
        assertThat(refused.parentsMatched()).isEqualTo(1_001);
        assertThat(refused.parentsMatchedExact()).isFalse();
        // ...and answered in two round trips within it.
        JoinResult<User, Post> answered = Join.of(b -> b.client(es)).childrenWhereParent(women);
        assertThat(answered.status()).isEqualTo(JoinResult.Status.COMPLETE);
        assertThat(answered.pairs()).extracting(p -> p.child().id()).containsExactlyInAnyOrder("hot0", "hot1", "hot2");
        assertThat(answered.roundTrips()).isEqualTo(2);
        assertThat(answered.keysShipped()).isEqualTo(n / 2 + 1);
        // Children-first needs no parent keys at all: the 3 popular photos and one check of their owner,
        // so the cap that refused keys-first does not stand in its way.
        JoinResult<User, Post> auto = Join.of(b -> b.client(es).maxParents(1_000))
                .childrenWhereParent(women.toBuilder().plan(JoinQuery.Plan.AUTO).build());
        assertThat(auto.status()).as(auto.describe()).isEqualTo(JoinResult.Status.COMPLETE);
        assertThat(auto.plan()).isEqualTo(JoinQuery.Plan.CHILDREN_FIRST);
        assertThat(auto.pairs())
                .extracting(p -> p.child().id() + "<-" + p.parent().id())
                .containsExactlyElementsOf(answered.pairs().stream()
                        .map(p -> p.child().id() + "<-" + p.parent().id())
                        .toList());
        assertThat(auto.roundTrips()).as(auto.requests().toString()).isEqualTo(2);
        assertThat(auto.childrenMatched()).isEqualTo(3);
        assertThat(auto.childrenMatchedExact()).isTrue();
        assertThat(auto.keysShipped()).isZero();
    }
}
