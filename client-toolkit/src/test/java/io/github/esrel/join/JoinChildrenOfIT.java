package io.github.esrel.join;

import static io.github.esrel.join.Blog.CHILDLESS;
import static io.github.esrel.join.Blog.USERS;
import static io.github.esrel.join.Blog.posts;
import static io.github.esrel.join.Blog.users;
import static io.github.esrel.join.BlogQuestions.byPopularity;
import static io.github.esrel.join.BlogQuestions.everyone;
import static io.github.esrel.join.BlogQuestions.johns;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.join.Blog.Post;
import io.github.esrel.join.Blog.User;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link Join#childrenOf}: the parents that match a query, each with its children. The Johns' posts grouped under
 * each John and checked against the data; childless parents left out of an inner join; only the children that match
 * the child query counted; the parents paged through a point in time, without duplicates or gaps (also when every
 * parent ties, and from the first page when asked for consistent paging), and a cursor whose point in time is gone.
 *
 * <p>On the node the join ITs share, with its {@link Blog} (written once for all of them).
 */
@EsrelTest
class JoinChildrenOfIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ElasticsearchClient es;

    @BeforeAll
    static void blog() throws IOException {
        es = cluster.client();
        Blog.seed(es);
    }

    @Test
    void shouldReturnThePostsOfUsersNamedJohnGroupedUnderEachJohn() {
        Join join = Join.of(b -> b.client(es));
        JoinResult<User, Post> r =
                join.childrenOf(johns(b -> b.childrenPerParent(2).parentsPerPage(20)));

        List<User> johns =
                users.stream().filter(u -> u.name().startsWith("John")).toList();
        assertThat(r.status()).isEqualTo(JoinResult.Status.COMPLETE);
        assertThat(r.parents()).extracting(p -> p.parent().value()).containsExactlyElementsOf(johns);
        for (ParentWithChildren<User, Post> p : r.parents()) {
            List<Post> theirs =
                    postsOf(p.parent().value()).sorted(byPopularity()).toList();
            assertThat(p.totalChildren()).as(p.parent().value().name()).isEqualTo(theirs.size());
            assertThat(p.children())
                    .extracting(Doc::value)
                    .containsExactlyElementsOf(theirs.subList(0, Math.min(2, theirs.size())));
            assertThat(p.parent().id()).isEqualTo("u" + p.parent().value().n());
        }
        assertThat(r.parents().stream()
                        .filter(p -> p.parent().value().n() == CHILDLESS)
                        .findFirst()
                        .orElseThrow()
                        .children())
                .isEmpty();
        assertThat(r.pairs())
                .allSatisfy(p -> assertThat(p.child().value().user_id())
                        .isEqualTo(p.parent().id()));
        assertThat(r.roundTrips()).as(r.requests().toString()).isEqualTo(2);
        assertThat(r.next()).isEmpty();
        assertThat(r.keysShipped()).isEqualTo(johns.size());
        assertThat(r.termsBatches()).isEqualTo(1);
    }

    @Test
    void shouldLeaveOutChildlessParentsInAnInnerJoin() {
        Join join = Join.of(b -> b.client(es));
        JoinResult<User, Post> left = join.childrenOf(johns(b -> b.parentsPerPage(20)));
        JoinResult<User, Post> inner =
                join.childrenOf(johns(b -> b.parentsPerPage(20).includeChildless(false)));
        assertThat(left.parents()).hasSize(10);
        assertThat(inner.parents()).hasSize(9).noneMatch(p -> p.parent().value().n() == CHILDLESS);
        assertThat(inner.parents()).allSatisfy(p -> assertThat(p.children()).isNotEmpty());
    }

    @Test
    void shouldOnlyCountChildrenMatchingTheChildQuery() {
        Join join = Join.of(b -> b.client(es));
        JoinResult<User, Post> r = join.childrenOf(johns(b -> b.parentsPerPage(20)
                .includeChildless(false)
                .childQuery(q -> q.match(m -> m.field("title").query("relationships")))));
        for (ParentWithChildren<User, Post> p : r.parents()) {
            long expected = postsOf(p.parent().value())
                    .filter(x -> x.title().startsWith("relationships"))
                    .count();
            assertThat(p.totalChildren()).isEqualTo(expected);
            assertThat(p.children())
                    .allSatisfy(c -> assertThat(c.value().title()).startsWith("relationships"));
        }
    }

    @Test
    void shouldPageThroughParentsWithAPointInTimeWithoutDuplicatesOrGaps() {
        Join join = Join.of(b -> b.client(es));
        JoinQuery<User, Post> all = everyone(b -> b.parentsPerPage(10).childrenPerParent(1));
        List<String> seen = new ArrayList<>();
        List<Integer> trips = new ArrayList<>();
        JoinCursor cursor = null;
        String pit = null;
        do {
            // Through its token, as a web page would hand it on.
            JoinResult<User, Post> page =
                    join.childrenOf(all, cursor == null ? null : JoinCursor.parse(cursor.token()));
            page.parents().forEach(p -> seen.add(p.parent().id()));
            trips.add(page.roundTrips());
            cursor = page.next().orElse(null);
            if (cursor != null && cursor.pitId() != null) {
                pit = cursor.pitId();
            }
        } while (cursor != null);

        assertThat(seen)
                .hasSize(USERS)
                .doesNotHaveDuplicates()
                .containsExactlyElementsOf(users.stream()
                        .sorted(Comparator.comparing(User::handle))
                        .map(u -> "u" + u.n())
                        .toList());
        // Page 1 needs no point in time; page 2 opens it; the last page closes it.
        assertThat(trips).containsExactly(2, 3, 2, 3);
        assertThat(pit).isNotNull();
        String closed = pit;
        assertThatThrownBy(() -> es.search(s -> s.pit(p -> p.id(closed)).size(1), Void.class))
                .isInstanceOfSatisfying(
                        co.elastic.clients.elasticsearch._types.ElasticsearchException.class,
                        e -> assertThat(e.status()).isEqualTo(404));
    }

    @Test
    void shouldPageThroughParentsThatAllTieWithoutDuplicatesOrGaps() {
        Join join = Join.of(b -> b.client(es));
        JoinQuery<User, Post> tied = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents("users", q -> q.matchAll(m -> m))
                        .children("posts7", "user_id")
                        .parentsPerPage(7)
                        .childrenPerParent(1)); // every parent scores 1.0
        List<String> seen = new ArrayList<>();
        JoinCursor cursor = null;
        do {
            JoinResult<User, Post> page = join.childrenOf(tied, cursor);
            page.parents().forEach(p -> seen.add(p.parent().id()));
            cursor = page.next().orElse(null);
        } while (cursor != null);
        assertThat(seen).doesNotHaveDuplicates().hasSize(USERS);
    }

    @Test
    void shouldReadEveryPageFromThePointInTimeWhenAskedForConsistentPaging() {
        Join join = Join.of(b -> b.client(es).consistentPaging(true));
        JoinResult<User, Post> first = join.childrenOf(everyone(b -> b.parentsPerPage(30)));
        assertThat(first.requests().get(0)).startsWith("open point in time");
        JoinResult<User, Post> second = join.childrenOf(
                everyone(b -> b.parentsPerPage(30)), first.next().orElseThrow());
        assertThat(second.parents()).hasSize(USERS - 30);
        assertThat(second.next()).isEmpty();
        assertThat(second.requests().get(second.roundTrips() - 1)).startsWith("close point in time");
    }

    @Test
    void shouldFailClearlyWhenACursorsPointInTimeIsGone() {
        Join join = Join.of(b -> b.client(es));
        JoinQuery<User, Post> all = everyone(b -> b.parentsPerPage(5));
        JoinResult<User, Post> p1 = join.childrenOf(all);
        JoinResult<User, Post> p2 = join.childrenOf(all, p1.next().orElseThrow());
        JoinCursor cursor = p2.next().orElseThrow();
        join.close(cursor);
        assertThatThrownBy(() -> join.childrenOf(all, cursor))
                .isInstanceOf(JoinException.class)
                .satisfies(e -> assertThat(((JoinException) e).status()).isEqualTo(404));
    }

    private static java.util.stream.Stream<Post> postsOf(User u) {
        return posts.stream().filter(p -> p.user_id().equals("u" + u.n()));
    }
}
