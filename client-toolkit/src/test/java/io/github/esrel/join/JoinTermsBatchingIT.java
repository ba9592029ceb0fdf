package io.github.esrel.join;

import static io.github.esrel.join.Blog.POSTS;
import static io.github.esrel.join.Blog.USERS;
import static io.github.esrel.join.Blog.bulk;
import static io.github.esrel.join.Blog.createPosts;
import static io.github.esrel.join.Blog.createUsers;
import static io.github.esrel.join.Blog.posts;
import static io.github.esrel.join.BlogQuestions.byPopularity;
import static io.github.esrel.join.BlogQuestions.everyoneWhere;
import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch.core.search.SourceConfig;
import io.github.esrel.join.Blog.Post;
import io.github.esrel.join.Blog.User;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Parent keys shipped to the child index in terms batches: batches of the child index's {@code
 * index.max_terms_count} that answer as one query would, the collapse of the children of too many parents in
 * batches, a limit read again after it was lowered, and 65,536 keys in two round trips.
 *
 * <p>On the node the join ITs share, with its {@link Blog} (written once for all of them).
 */
@EsrelTest
class JoinTermsBatchingIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ElasticsearchClient es;

    @BeforeAll
    static void blog() throws IOException {
        es = cluster.client();
        Blog.seed(es);
    }

    @Test
    void shouldBatchKeysToTheChildIndexsMaxTermsCountAndStillAnswerLikeOneQuery() throws IOException {
        Join join = Join.of(b -> b.client(es));
        JoinQuery<User, Post> q = everyoneWhere(b -> b.children("posts7", "user_id")
                .childSort(
                        SortOptions.of(s -> s.field(f -> f.field("popularity").order(SortOrder.Desc))))
                .childrenPerPage(50));

        JoinResult<User, Post> first = join.childrenWhereParent(q);
        // Parents, the batch the server refused (more than 7 terms), the setting, the batches; then, since more
        // children follow, the same batches from a point in time, so that the next page continues exactly.
        assertThat(first.requests()).hasSize(6);
        assertThat(first.requests().get(2)).startsWith("settings [posts7]");
        assertThat(first.requests().get(3)).startsWith("msearch [posts7]").contains("in 6 searches");
        assertThat(first.requests().get(4)).startsWith("open point in time [posts7]");
        assertThat(first.requests().get(5)).startsWith("msearch [posts7]").contains("in 6 searches");
        assertThat(first.maxTermsCount()).isEqualTo(7);
        assertThat(first.termsBatches()).isEqualTo(6); // 40 keys / 7
        assertThat(first.keysShipped()).isEqualTo(USERS);
        join.close(first.next().orElseThrow());

        JoinResult<User, Post> again = join.childrenWhereParent(q);
        assertThat(again.requests()).hasSize(4);
        join.close(again.next().orElseThrow());
        assertThat(again.pairs())
                .extracting(p -> p.child().id())
                .containsExactlyElementsOf(
                        first.pairs().stream().map(p -> p.child().id()).toList());

        List<String> oneQuery = posts.stream()
                .sorted(byPopularity())
                .limit(50)
                .map(p -> "p" + posts.indexOf(p))
                .toList();
        assertThat(again.pairs()).extracting(p -> p.child().id()).containsExactlyElementsOf(oneQuery);
        assertThat(again.childrenMatched()).isEqualTo(POSTS);

        // Merging pages of scored batches gives the scores one search gives.
        JoinResult<User, Post> scored = join.childrenWhereParent(everyoneWhere(b -> b.children("posts7", "user_id")
                .childQuery(c -> c.match(m -> m.field("title").query("relationships complicated")))
                .childrenPerPage(30)));
        JoinResult<User, Post> unbatched = join.childrenWhereParent(everyoneWhere(b -> b.children("posts", "user_id")
                .childQuery(c -> c.match(m -> m.field("title").query("relationships complicated")))
                .childrenPerPage(30)));
        assertThat(scored.termsBatches()).isEqualTo(6);
        assertThat(unbatched.termsBatches()).isEqualTo(1);
        assertThat(scored.pairs())
                .extracting(p -> p.child().value().title())
                .containsOnly("relationships are complicated");
        assertThat(scored.childrenMatched()).isEqualTo(unbatched.childrenMatched());
    }

    @Test
    void shouldBatchTheCollapseOfChildrenOfTooManyParents() {
        Join join = Join.of(b -> b.client(es).maxTermsCount(7));
        JoinResult<User, Post> batched = join.childrenOf(everyoneWhere(b -> b.children("posts7", "user_id")
                .parentsPerPage(USERS)
                .parentSort(SortOptions.of(s -> s.field(f -> f.field("n"))))
                .childrenPerParent(2)
                .childSort(SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc))))));
        JoinResult<User, Post> whole = Join.of(b -> b.client(es))
                .childrenOf(everyoneWhere(b -> b.children("posts", "user_id")
                        .parentsPerPage(USERS)
                        .parentSort(SortOptions.of(s -> s.field(f -> f.field("n"))))
                        .childrenPerParent(2)
                        .childSort(
                                SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc))))));
        assertThat(batched.termsBatches()).isEqualTo(6);
        assertThat(batched.roundTrips()).isEqualTo(2);
        assertThat(batched.parents())
                .extracting(p ->
                        p.parent().id() + p.children().stream().map(Doc::id).toList() + p.totalChildren())
                .containsExactlyElementsOf(whole.parents().stream()
                        .map(p -> p.parent().id()
                                + p.children().stream().map(Doc::id).toList()
                                + p.totalChildren())
                        .toList());
    }

    @Test
    void shouldReReadALimitThatWasLoweredAfterItWasCached() throws IOException {
        createPosts(es, "posts-shrinking", 1, Map.of("index.max_terms_count", "20"));
        bulk(
                es,
                "posts-shrinking",
                IntStream.range(0, POSTS).boxed().collect(Collectors.toMap(j -> "p" + j, posts::get)));
        Join join = Join.of(b -> b.client(es));
        JoinQuery<User, Post> q =
                everyoneWhere(b -> b.children("posts-shrinking", "user_id").childrenPerPage(POSTS));
        JoinResult<User, Post> before = join.childrenWhereParent(q);
        assertThat(before.maxTermsCount()).isEqualTo(20);
        assertThat(before.termsBatches()).isEqualTo(2);

        es.indices().putSettings(p -> p.index("posts-shrinking").settings(s -> s.maxTermsCount(3)));
        JoinResult<User, Post> after = join.childrenWhereParent(q);
        assertThat(after.maxTermsCount()).isEqualTo(3);
        assertThat(after.termsBatches()).isEqualTo(14);
        assertThat(after.pairs()).hasSize(POSTS);
        assertThat(after.requests()).hasSize(4);
    }

    @Test
    void shouldJoin65536KeysInTwoRoundTrips() throws IOException {
        int n = 65_536;
        createUsers(es, "many-users", 1, Map.of("index.max_result_window", String.valueOf(n)));
        createPosts(es, "many-posts", 1, Map.of());
        Map<String, Object> many = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            many.put("m" + i, new User("u", "female", "", i));
        }
        long t0 = System.nanoTime();
        bulk(es, "many-users", many);
        System.out.printf("indexed %,d users in %d ms%n", n, (System.nanoTime() - t0) / 1_000_000);
        Map<String, Object> few = new LinkedHashMap<>();
        for (int j = 0; j < 100; j++) {
            few.put("q" + j, new Post("t", "m" + (j * 641), "", j, j, null));
        }
        bulk(es, "many-posts", few);
        JoinQuery<User, Post> q = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents("many-users", x -> x.matchAll(m -> m))
                        .children("many-posts", "user_id")
                        .plan(JoinQuery.Plan.KEYS_FIRST)
                        .childSort(SortOptions.of(
                                s -> s.field(f -> f.field("popularity").order(SortOrder.Desc))))
                        .childrenPerPage(10)
                        .parentSource(SourceConfig.of(s -> s.filter(f -> f.includes("n")))));

        JoinResult<User, Post> r =
                Join.of(b -> b.client(es).maxParents(n).pageSize(n)).childrenWhereParent(q);
        System.out.println("65,536 keys in one page: " + r.describe());
        assertThat(r.status()).isEqualTo(JoinResult.Status.COMPLETE);
        assertThat(r.keysShipped()).isEqualTo(n);
        assertThat(r.termsBatches()).isEqualTo(1);
        assertThat(r.roundTrips()).as(r.requests().toString()).isEqualTo(2);
        assertThat(r.pairs())
                .extracting(p -> p.child().id())
                .containsExactlyElementsOf(
                        IntStream.range(0, 10).mapToObj(j -> "q" + (99 - j)).toList());
        assertThat(r.pairs())
                .allSatisfy(p -> assertThat(p.parent().value().n() * 1L)
                        .isEqualTo(Long.parseLong(p.child().value().user_id().substring(1))));

        // The same with the default page size: the parent side pages through a point in time.
        JoinResult<User, Post> paged = Join.of(b -> b.client(es).maxParents(n)).childrenWhereParent(q);
        System.out.println("65,536 keys in pages of 10,000: " + paged.describe());
        assertThat(paged.pairs())
                .extracting(p -> p.child().id())
                .containsExactlyElementsOf(
                        r.pairs().stream().map(p -> p.child().id()).toList());
        assertThat(paged.parentsRead()).isEqualTo(10_000 + n);
        // The first page, the point in time opened, 7 pages of it, closed, and the children.
        assertThat(paged.roundTrips()).as(paged.requests().toString()).isEqualTo(1 + 1 + 7 + 1 + 1);

        // One key over the cap is refused in one round trip.
        JoinResult<User, Post> over =
                Join.of(b -> b.client(es).maxParents(n - 1).pageSize(n)).childrenWhereParent(q);
        assertThat(over.status()).isEqualTo(JoinResult.Status.CAP_EXCEEDED);
        assertThat(over.roundTrips()).isEqualTo(1);

        // Every user matches: AUTO reads 100 posts and checks their 100 owners, in two round trips.
        JoinResult<User, Post> auto = Join.of(b -> b.client(es).maxParents(n - 1))
                .childrenWhereParent(q.toBuilder().plan(JoinQuery.Plan.AUTO).build());
        System.out.println("65,536 parents, AUTO: " + auto.describe());
        assertThat(auto.plan()).isEqualTo(JoinQuery.Plan.CHILDREN_FIRST);
        assertThat(auto.roundTrips()).as(auto.requests().toString()).isEqualTo(2);
        assertThat(auto.pairs())
                .extracting(p -> p.child().id() + "<-" + p.parent().id())
                .containsExactlyElementsOf(r.pairs().stream()
                        .map(p -> p.child().id() + "<-" + p.parent().id())
                        .toList());
        assertThat(auto.pairs()).extracting(p -> p.parent().value().n()).doesNotContainNull();
    }
}
