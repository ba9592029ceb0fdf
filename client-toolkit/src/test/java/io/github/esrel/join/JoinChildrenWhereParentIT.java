package io.github.esrel.join;

import static io.github.esrel.join.Blog.POSTS;
import static io.github.esrel.join.Blog.USERS;
import static io.github.esrel.join.Blog.bulk;
import static io.github.esrel.join.Blog.createPosts;
import static io.github.esrel.join.Blog.posts;
import static io.github.esrel.join.BlogQuestions.byPopularity;
import static io.github.esrel.join.BlogQuestions.denormalizedPopularByWomen;
import static io.github.esrel.join.BlogQuestions.popularByWomen;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import io.github.esrel.join.Blog.Post;
import io.github.esrel.join.Blog.User;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link Join#childrenWhereParent}: children filtered by their parents' attributes. The popular posts of female
 * authors, answered as the denormalized query answers them; parents fetched only for the children returned when lazy;
 * a join on a parent field instead of the {@code _id}; a cursor that pages past {@code index.max_result_window}
 * without gaps or duplicates, whichever plan runs.
 *
 * <p>On the node the join ITs share, with its {@link Blog} (written once for all of them).
 */
@EsrelTest
class JoinChildrenWhereParentIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ElasticsearchClient es;

    @BeforeAll
    static void blog() throws IOException {
        es = cluster.client();
        Blog.seed(es);
    }

    /**
     * Issue 11: childrenWhereParent paged only with from and stopped at index.max_result_window. Its cursor
     * pages with a point in time on the child index and search_after, in a total order (the child sort, then
     * _shard_doc), so that every plan, terms batches included, returns every child once and in order.
     */
    @Test
    void shouldPageChildrenWhereParentPastTheResultWindowWithACursorWithoutGapsOrDuplicates() throws IOException {
        createPosts(es, "posts-window", 3, Map.of("index.max_result_window", "50", "index.max_terms_count", "7"));
        bulk(es, "posts-window", IntStream.range(0, POSTS).boxed().collect(Collectors.toMap(j -> "p" + j, posts::get)));
        Join join = Join.of(b -> b.client(es).maxProbedChildren(40));
        List<String> female = IntStream.range(0, POSTS)
                .filter(j -> posts.get(j).user().gender().equals("female"))
                .mapToObj(j -> "p" + j)
                .toList();
        assertThat(female.size()).isGreaterThan(100);

        // Offset paging stops at the window, as Elasticsearch's from/size does.
        JoinQuery<User, Post> tiedQuery = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents("users", q -> q.term(t -> t.field("gender").value("female")))
                        .children("posts-window", "user_id")
                        .childSort(SortOptions.of(
                                s -> s.field(f -> f.field("user.gender")))) // one value: every child ties
                        .childrenPerPage(10));
        assertThatThrownBy(() -> join.childrenWhereParent(tiedQuery.toBuilder()
                        .from(45)
                        .plan(JoinQuery.Plan.KEYS_FIRST)
                        .build()))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("max_result_window");

        List<SortOptions> unique =
                List.of(SortOptions.of(s -> s.field(f -> f.field("popularity").order(SortOrder.Desc))));
        List<String> byPopularity = female.stream()
                .sorted(Comparator.comparing((String id) ->
                                posts.get(Integer.parseInt(id.substring(1))).popularity())
                        .reversed())
                .toList();
        for (JoinQuery.Plan plan : JoinQuery.Plan.values()) {
            List<Pair<User, Post>> tied =
                    allPages(join, tiedQuery.toBuilder().plan(plan).build());
            assertThat(tied)
                    .extracting(p -> p.child().id())
                    .as(plan.toString())
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(female);
            assertThat(tied)
                    .allSatisfy(p -> assertThat(p.parent().value().gender()).isEqualTo("female"));

            List<Pair<User, Post>> ordered = allPages(
                    join,
                    tiedQuery.toBuilder()
                            .plan(plan)
                            .childSort(unique)
                            .childrenPerPage(7)
                            .build());
            assertThat(ordered)
                    .extracting(p -> p.child().id())
                    .as(plan.toString())
                    .containsExactlyElementsOf(byPopularity);
        }

        // The last page closed the point in time; an abandoned cursor's can be closed, and then fails clearly.
        JoinResult<User, Post> p1 = join.childrenWhereParent(tiedQuery);
        assertThat(p1.hasMoreChildren()).isTrue();
        JoinResult<User, Post> p2 =
                join.childrenWhereParent(tiedQuery, p1.next().orElseThrow());
        assertThat(p2.requests().get(0)).startsWith("open point in time [posts-window]");
        JoinCursor abandoned = p2.next().orElseThrow();
        join.close(abandoned);
        assertThatThrownBy(() -> join.childrenWhereParent(tiedQuery, abandoned))
                .isInstanceOf(JoinException.class)
                .satisfies(e -> assertThat(((JoinException) e).status()).isEqualTo(404));
    }

    /** Every page of a childrenWhereParent join, following the cursor through its token as a web page would. */
    private static List<Pair<User, Post>> allPages(Join join, JoinQuery<User, Post> q) {
        List<Pair<User, Post>> all = new ArrayList<>();
        JoinCursor cursor = null;
        String lastPit = null;
        int pages = 0;
        do {
            JoinResult<User, Post> page =
                    join.childrenWhereParent(q, cursor == null ? null : JoinCursor.parse(cursor.token()));
            assertThat(page.status()).as(page.describe()).isEqualTo(JoinResult.Status.COMPLETE);
            assertThat(page.pairs().size()).isLessThanOrEqualTo(q.childrenPerPage());
            all.addAll(page.pairs());
            cursor = page.next().orElse(null);
            if (cursor != null && cursor.pitId() != null) {
                lastPit = cursor.pitId();
            }
            assertThat(++pages).as("pages of " + q).isLessThan(POSTS);
        } while (cursor != null);
        assertThat(lastPit).as("pages after the first read a point in time").isNotNull();
        String closed = lastPit;
        assertThatThrownBy(() -> es.search(s -> s.pit(p -> p.id(closed)).size(1), Void.class))
                .as("the last page closes the point in time")
                .isInstanceOfSatisfying(
                        co.elastic.clients.elasticsearch._types.ElasticsearchException.class,
                        e -> assertThat(e.status()).isEqualTo(404));
        return all;
    }

    @Test
    void shouldReturnThePopularPostsOfFemaleAuthorsAsTheDenormalizedQueryDoes() throws IOException {
        Join join = Join.of(b -> b.client(es));
        JoinQuery<User, Post> q = popularByWomen(b -> b.childrenPerPage(20).plan(JoinQuery.Plan.KEYS_FIRST));
        JoinResult<User, Post> joined = join.childrenWhereParent(q);

        List<String> denormalized = denormalizedPopularByWomen(es, "posts", 0, 20);
        assertThat(joined.status()).isEqualTo(JoinResult.Status.COMPLETE);
        assertThat(joined.pairs()).extracting(p -> p.child().id()).containsExactlyElementsOf(denormalized);
        assertThat(joined.pairs()).allSatisfy(p -> {
            assertThat(p.parent().value().gender()).isEqualTo("female");
            assertThat(p.child().value().user_id()).isEqualTo(p.parent().id());
            assertThat(p.child().value().popularity()).isGreaterThanOrEqualTo(300);
        });
        assertThat(joined.roundTrips()).as(joined.requests().toString()).isEqualTo(2);
        assertThat(joined.parentsMatched()).isEqualTo(USERS / 2);
        assertThat(joined.parentsMatchedExact()).isTrue();
        long expectedTotal = posts.stream()
                .filter(p -> p.user().gender().equals("female") && p.popularity() >= 300)
                .count();
        assertThat(joined.childrenMatched()).isEqualTo(expectedTotal);
        assertThat(joined.hasMoreChildren()).isEqualTo(expectedTotal > 20);

        JoinResult<User, Post> page2 =
                join.childrenWhereParent(q.toBuilder().from(20).build());
        assertThat(page2.pairs())
                .extracting(p -> p.child().id())
                .containsExactlyElementsOf(denormalizedPopularByWomen(es, "posts", 20, 20));
    }

    @Test
    void shouldFetchOnlyTheParentsOfTheReturnedChildrenWhenLazy() {
        Join join = Join.of(b -> b.client(es));
        JoinResult<User, Post> eager = join.childrenWhereParent(
                popularByWomen(b -> b.childrenPerPage(5).plan(JoinQuery.Plan.KEYS_FIRST)));
        JoinResult<User, Post> lazy = join.childrenWhereParent(popularByWomen(
                b -> b.childrenPerPage(5).plan(JoinQuery.Plan.KEYS_FIRST).parentFetch(JoinQuery.ParentFetch.LAZY)));
        assertThat(lazy.pairs())
                .extracting(p -> p.child().id() + "<-" + p.parent().id() + ":"
                        + p.parent().value())
                .containsExactlyElementsOf(eager.pairs().stream()
                        .map(p -> p.child().id() + "<-" + p.parent().id() + ":"
                                + p.parent().value())
                        .toList());
        assertThat(lazy.roundTrips()).as(lazy.requests().toString()).isEqualTo(3);
    }

    @Test
    void shouldJoinOnAParentFieldInsteadOfTheId() {
        Join join = Join.of(b -> b.client(es));
        JoinResult<User, Post> r = join.childrenWhereParent(JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents(
                                "users",
                                q -> q.terms(t -> t.field("handle")
                                        .terms(v -> v.value(List.of(
                                                co.elastic.clients.elasticsearch._types.FieldValue.of("h01"),
                                                co.elastic.clients.elasticsearch._types.FieldValue.of("h03"))))))
                        .parentKey("handle")
                        .children("posts", "user_handle")
                        .childSort(
                                SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Asc))))
                        .childrenPerPage(1000)));
        List<String> expected = IntStream.range(0, POSTS)
                .filter(j -> Set.of("h01", "h03").contains(posts.get(j).user_handle()))
                .mapToObj(j -> "p" + j)
                .toList();
        assertThat(r.pairs()).extracting(p -> p.child().id()).containsExactlyElementsOf(expected);
        assertThat(r.pairs())
                .allSatisfy(p -> assertThat(p.parent().value().handle())
                        .isEqualTo(p.child().value().user_handle()));

        // Keys read from doc values alone (no stored field per parent), parents fetched for the page.
        JoinResult<User, Post> lazy = join.childrenWhereParent(JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents("users", q -> q.term(t -> t.field("gender").value("male")))
                        .parentKey("handle")
                        .parentFetch(JoinQuery.ParentFetch.LAZY)
                        .children("posts", "user_handle")
                        .plan(JoinQuery.Plan.KEYS_FIRST)
                        .childSort(
                                SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Asc))))
                        .childrenPerPage(15)));
        List<String> men = IntStream.range(0, POSTS)
                .filter(j -> posts.get(j).user().gender().equals("male"))
                .limit(15)
                .mapToObj(j -> "p" + j)
                .toList();
        assertThat(lazy.pairs()).extracting(p -> p.child().id()).containsExactlyElementsOf(men);
        assertThat(lazy.pairs()).allSatisfy(p -> {
            assertThat(p.parent().value().handle()).isEqualTo(p.child().value().user_handle());
            assertThat(p.parent().id()).isEqualTo("u" + p.parent().value().n());
        });
        assertThat(lazy.roundTrips()).isEqualTo(3);
    }
}
