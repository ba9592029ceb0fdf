package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.mapping.TypeMapping;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.SourceConfig;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Application-side joins on a real node: seed 000's users and blog posts in both directions, each
 * answer checked against the data and against the denormalized query (the user's fields copied into
 * each post); seed 003's trap (a broad parent condition, a selective child condition) hitting the
 * cap; terms batching above {@code index.max_terms_count}; paging the parent side through a point in
 * time; 65,536 keys in two round trips. One class, so one node start for all of it.
 */
@EsrelTest
class JoinIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ElasticsearchClient es;

    /** A user, as the seed stores it. */
    record User(String name, String gender, String handle, int n) {}

    /** The user fields copied into each post (the denormalized form). */
    record Author(String name, String gender) {}

    /** A blog post; {@code user_id} refers to the user's {@code _id}, {@code user_handle} to its handle. */
    record Post(String title, String user_id, String user_handle, int popularity, long date, Author user) {}

    static final int USERS = 40;
    static final int POSTS = 400;
    /** A John who wrote nothing. */
    static final int CHILDLESS = 4;

    static final List<User> users = new ArrayList<>();
    static final List<Post> posts = new ArrayList<>();

    @BeforeAll
    static void blog() throws IOException {
        es = cluster.client();
        String[] first = {"John", "Jane", "Mary", "Peter"};
        for (int i = 0; i < USERS; i++) {
            users.add(new User(
                    first[i % 4] + " Surname" + i, i % 2 == 0 ? "female" : "male", String.format("h%02d", i), i));
        }
        for (int j = 0; j < POSTS; j++) {
            int u = (j * 7 + 1) % USERS;
            if (u == CHILDLESS) {
                u = CHILDLESS + 1;
            }
            User user = users.get(u);
            posts.add(new Post(
                    j % 3 == 0 ? "relationships are complicated" : "another topic",
                    "u" + u,
                    user.handle(),
                    (j * 37) % POSTS,
                    1_000_000L + j,
                    new Author(user.name(), user.gender())));
        }
        createUsers("users", 2, Map.of());
        createPosts("posts", 3, Map.of());
        createPosts("posts7", 2, Map.of("index.max_terms_count", "7"));
        bulk("users", IntStream.range(0, USERS).boxed().collect(Collectors.toMap(i -> "u" + i, users::get)));
        Map<String, Object> byId =
                IntStream.range(0, POSTS).boxed().collect(Collectors.toMap(j -> "p" + j, posts::get));
        bulk("posts", byId);
        bulk("posts7", byId);
    }

    // --- children of parents matching a query --------------------------------------------------

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

    // --- children filtered by parent attributes ------------------------------------------------

    /**
     * Issue 11: childrenWhereParent paged only with from and stopped at index.max_result_window. Its cursor
     * pages with a point in time on the child index and search_after, in a total order (the child sort, then
     * _shard_doc), so that every plan, terms batches included, returns every child once and in order.
     */
    @Test
    void shouldPageChildrenWhereParentPastTheResultWindowWithACursorWithoutGapsOrDuplicates() throws IOException {
        createPosts("posts-window", 3, Map.of("index.max_result_window", "50", "index.max_terms_count", "7"));
        bulk("posts-window", IntStream.range(0, POSTS).boxed().collect(Collectors.toMap(j -> "p" + j, posts::get)));
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

        List<String> denormalized = denormalizedPopularByWomen("posts", 0, 20);
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
                .containsExactlyElementsOf(denormalizedPopularByWomen("posts", 20, 20));
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

    // --- the fan-out cap (seed 003's trap) ------------------------------------------------------

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
        createUsers("trap-users", 2, Map.of());
        createPosts("trap-photos", 2, Map.of());
        Map<String, Object> trapUsers = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            trapUsers.put(
                    "t" + i,
                    new User("User " + i, i == lucky || i % 2 == 0 ? "female" : "male", String.format("t%05d", i), i));
        }
        bulk("trap-users", trapUsers);
        Map<String, Object> photos = new LinkedHashMap<>();
        for (int j = 0; j < 600; j++) {
            int owner = (j * 97) % n == lucky ? lucky + 1 : (j * 97) % n;
            photos.put("x" + j, new Post("photo", "t" + owner, "", 1, j, null));
        }
        for (int j = 0; j < 3; j++) {
            photos.put("hot" + j, new Post("photo", "t" + lucky, "", 100 + j, 10_000 + j, null));
        }
        bulk("trap-photos", photos);

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

    // --- terms batching --------------------------------------------------------------------------

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
        createPosts("posts-shrinking", 1, Map.of("index.max_terms_count", "20"));
        bulk("posts-shrinking", IntStream.range(0, POSTS).boxed().collect(Collectors.toMap(j -> "p" + j, posts::get)));
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
        createUsers("many-users", 1, Map.of("index.max_result_window", String.valueOf(n)));
        createPosts("many-posts", 1, Map.of());
        Map<String, Object> many = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            many.put("m" + i, new User("u", "female", "", i));
        }
        long t0 = System.nanoTime();
        bulk("many-users", many);
        System.out.printf("indexed %,d users in %d ms%n", n, (System.nanoTime() - t0) / 1_000_000);
        Map<String, Object> few = new LinkedHashMap<>();
        for (int j = 0; j < 100; j++) {
            few.put("q" + j, new Post("t", "m" + (j * 641), "", j, j, null));
        }
        bulk("many-posts", few);
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

    // --- plans -------------------------------------------------------------------------------------

    @Test
    void shouldGiveTheSameAnswerWhicheverPlanRuns() throws IOException {
        Join join = Join.of(b -> b.client(es));
        List<JoinQuery<User, Post>> questions = List.of(
                popularByWomen(b -> b.childrenPerPage(20)),
                popularByWomen(b -> b.childrenPerPage(20).from(20)),
                popularByWomen(b -> b.childrenPerPage(7).parentFetch(JoinQuery.ParentFetch.LAZY)),
                johns(b -> b.childrenPerPage(15)
                        .childQuery(c -> c.match(m -> m.field("title").query("relationships")))
                        .childSort(List.of())),
                johns(b -> b.childrenPerPage(30)
                        .parentKey("handle")
                        .children("posts", "user_handle")
                        .childSort(
                                SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc))))),
                JoinQuery.of(
                        User.class,
                        Post.class,
                        b -> b.parents(
                                        "users",
                                        q -> q.term(t -> t.field("handle").value("h04")))
                                .children("posts", "user_id")
                                .childrenPerPage(10)));
        for (JoinQuery<User, Post> q : questions) {
            List<String> expected = answer(join.childrenWhereParent(
                    q.toBuilder().plan(JoinQuery.Plan.KEYS_FIRST).build()));
            for (JoinQuery.Plan plan : List.of(JoinQuery.Plan.AUTO, JoinQuery.Plan.CHILDREN_FIRST)) {
                JoinResult<User, Post> r =
                        join.childrenWhereParent(q.toBuilder().plan(plan).build());
                assertThat(r.status()).as(plan + " " + q).isEqualTo(JoinResult.Status.COMPLETE);
                assertThat(answer(r)).as(plan + " " + q + "\n" + r.describe()).containsExactlyElementsOf(expected);
            }
        }
        // The users of the first question (40 users) fit in AUTO's preview: the first round trip
        // holds every key and the children to filter, so it answers in one.
        JoinResult<User, Post> auto = join.childrenWhereParent(popularByWomen(b -> b.childrenPerPage(20)));
        assertThat(auto.roundTrips()).as(auto.requests().toString()).isEqualTo(1);
        assertThat(answer(auto))
                .extracting(a -> a.substring(0, a.indexOf('<')))
                .containsExactlyElementsOf(denormalizedPopularByWomen("posts", 0, 20));
        // h04 wrote nothing: no pairs, and every plan says so.
        assertThat(join.childrenWhereParent(questions.get(5)).pairs()).isEmpty();
    }

    @Test
    void shouldPickThePlanFromTheShareOfMatchingParents() throws IOException {
        // 3,000 users, 40% women (more than AUTO's preview of 512 keys); 6,000 posts, 2 per user; the
        // newest 1,000 posts are all by men.
        int n = 3_000;
        createUsers("wide-users", 2, Map.of());
        createPosts("wide-posts", 2, Map.of());
        Map<String, Object> wideUsers = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            wideUsers.put("w" + i, new User("User " + i, i % 5 < 2 ? "female" : "male", String.format("w%05d", i), i));
        }
        bulk("wide-users", wideUsers);
        Map<String, Object> widePosts = new LinkedHashMap<>();
        for (int j = 0; j < 2 * n; j++) {
            int u = j < 5_000 ? j % n : 5 * (j % 600) + 2 + j % 3; // i % 5 in {2,3,4}: men
            widePosts.put("y" + j, new Post("post " + j, "w" + u, String.format("w%05d", u), j % 100, j, null));
        }
        bulk("wide-posts", widePosts);
        JoinQuery<User, Post> oldest = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents("wide-users", q -> q.term(t -> t.field("gender").value("female")))
                        .children("wide-posts", "user_id")
                        .childSort(
                                SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Asc))))
                        .childrenPerPage(20));
        Join join = Join.of(b -> b.client(es));
        List<String> expected = answer(join.childrenWhereParent(
                oldest.toBuilder().plan(JoinQuery.Plan.KEYS_FIRST).build()));

        // Broad parent condition, 20 wanted: 1,200 keys would be read, about 50 children suffice.
        JoinResult<User, Post> broad = join.childrenWhereParent(oldest);
        assertThat(broad.plan()).as(broad.describe()).isEqualTo(JoinQuery.Plan.CHILDREN_FIRST);
        assertThat(broad.roundTrips()).as(broad.requests().toString()).isEqualTo(2);
        assertThat(broad.childrenRead()).isEqualTo(Join.MIN_PROBE);
        assertThat(broad.parentsRead()).isLessThan(Join.PREVIEW_KEYS + Join.MIN_PROBE + 1);
        assertThat(answer(broad)).containsExactlyElementsOf(expected);
        // Asked again within the minute: the condition is known to match more parents than the preview
        // holds, so the first round trip reads children, neither keys nor a count of parents (the count of
        // the first call is reported, as not exact), and beside them checks the keys the last read found
        // (of its first children, as many as this read reads).
        JoinResult<User, Post> again = join.childrenWhereParent(oldest);
        assertThat(again.requests().get(0))
                .as(again.requests().toString())
                .startsWith("msearch [wide-users,wide-posts] first")
                .contains("children (bounded), matching parents of the last read's")
                .doesNotContain("parent keys")
                .doesNotContain("parent count");
        assertThat(again.parentsMatched()).isEqualTo(broad.parentsMatched()).isEqualTo(1_200);
        assertThat(again.parentsMatchedExact()).isFalse();
        assertThat(again.parentsRead()).isLessThanOrEqualTo(Join.MIN_PROBE);
        // And the share it learned sizes the first read of children: about what holds the page, not 4 x the page.
        assertThat(again.childrenRead()).as(again.describe()).isLessThan(Join.MIN_PROBE);
        assertThat(again.roundTrips()).isEqualTo(1);
        assertThat(answer(again)).containsExactlyElementsOf(expected);

        // 1,000 wanted: about 2,500 children against 1,200 keys, so keys-first.
        JoinQuery<User, Post> many = oldest.toBuilder().childrenPerPage(1_000).build();
        JoinResult<User, Post> deep = join.childrenWhereParent(many);
        assertThat(deep.plan()).as(deep.describe()).isEqualTo(JoinQuery.Plan.KEYS_FIRST);
        assertThat(deep.keysShipped()).isEqualTo(1_200);
        assertThat(deep.roundTrips()).as(deep.requests().toString()).isEqualTo(3);
        assertThat(answer(deep))
                .containsExactlyElementsOf(answer(join.childrenWhereParent(
                        many.toBuilder().plan(JoinQuery.Plan.KEYS_FIRST).build())));

        // Newest first, the first 1,000 posts are all by men: children-first reads on, adapting its
        // page size, and gives up at its budget; keys-first then answers the same as always.
        JoinQuery<User, Post> newest = oldest.toBuilder()
                .plan(JoinQuery.Plan.CHILDREN_FIRST)
                .childSort(SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc))))
                .build();
        List<String> newestExpected = answer(join.childrenWhereParent(
                newest.toBuilder().plan(JoinQuery.Plan.KEYS_FIRST).build()));
        JoinResult<User, Post> budget =
                Join.of(b -> b.client(es).maxProbedChildren(600)).childrenWhereParent(newest);
        assertThat(budget.plan()).as(budget.describe()).isEqualTo(JoinQuery.Plan.KEYS_FIRST);
        assertThat(budget.childrenRead()).isBetween(Join.MIN_PROBE, 600);
        assertThat(answer(budget)).containsExactlyElementsOf(newestExpected);
        JoinResult<User, Post> patient = join.childrenWhereParent(newest);
        assertThat(patient.plan()).as(patient.describe()).isEqualTo(JoinQuery.Plan.CHILDREN_FIRST);
        assertThat(patient.childrenRead()).isGreaterThan(1_000);
        assertThat(answer(patient)).containsExactlyElementsOf(newestExpected);

        // A selective condition (400 women, within the preview) whose parents wrote none of the newest 100
        // posts: the preview holds every key, so keys-first answers in the second round trip, with the
        // parents read in it too when the key is a doc-values field (the preview read keys alone there).
        Query youngWomen = Query.of(q ->
                q.bool(b -> b.filter(f -> f.term(t -> t.field("gender").value("female")))
                        .filter(ClientApi.range("n", false, 999))));
        JoinQuery<User, Post> selective = newest.toBuilder()
                .plan(JoinQuery.Plan.AUTO)
                .parents("wide-users", youngWomen)
                .build();
        JoinQuery<User, Post> byHandle = selective.toBuilder()
                .parentKey("handle")
                .children("wide-posts", "user_handle")
                .build();
        for (JoinQuery<User, Post> q : List.of(
                selective,
                byHandle,
                byHandle.toBuilder().parentFetch(JoinQuery.ParentFetch.LAZY).build())) {
            // A Join of its own each: the last two differ only in how parents are fetched, and a Join that answered
            // one would read the other's children in its first round trip (the children of the same keys).
            Join ownJoin = Join.of(b -> b.client(es));
            JoinResult<User, Post> r = ownJoin.childrenWhereParent(q);
            String what = q.parentKey() + " " + q.parentFetch() + ": " + r.describe() + " " + r.requests();
            assertThat(r.plan()).as(what).isEqualTo(JoinQuery.Plan.KEYS_FIRST);
            assertThat(r.parentsMatched()).as(what).isEqualTo(400);
            assertThat(r.parentsRead()).as(what).isEqualTo(400);
            assertThat(r.roundTrips()).as(what).isEqualTo(q.parentFetch() == JoinQuery.ParentFetch.LAZY ? 3 : 2);
            assertThat(answer(r))
                    .as(what)
                    .hasSize(20)
                    .containsExactlyElementsOf(answer(join.childrenWhereParent(
                            q.toBuilder().plan(JoinQuery.Plan.KEYS_FIRST).build())));
            assertThat(r.pairs())
                    .allSatisfy(p -> assertThat(p.parent().value().gender()).isEqualTo("female"));

            // Asked again within the minute: 400 of 3,000 parents match, so about 150 children would hold
            // the 20 wanted; the first round trip reads no children in the child order but starts from the last
            // answer's keys. With _id keys it checks by counting that they still match, and that the last page's
            // parents are as read, and reads their children; with a doc-values key the preview runs, and beside it what
            // keys-first
            // read for those keys (and their parents, when the preview reads keys alone): the same keys, so
            // keys-first answers from it. A round trip earlier either way.
            JoinResult<User, Post> repeated = ownJoin.childrenWhereParent(q);
            String whatRepeated = what + "\nagain: " + repeated.describe() + " " + repeated.requests();
            assertThat(repeated.requests().get(0))
                    .as(whatRepeated)
                    .doesNotContainPattern("first \\d+ children")
                    .contains(
                            q.parentKeyIsId()
                                    ? "check that the last answer's 400 parent keys still match"
                                    : "children of the last answer's 400 parent keys");
            assertThat(repeated.childrenRead()).as(whatRepeated).isZero();
            assertThat(repeated.roundTrips()).as(whatRepeated).isEqualTo(r.roundTrips() - 1);
            assertThat(answer(repeated)).as(whatRepeated).containsExactlyElementsOf(answer(r));
        }

        // Over the cap, keys-first cannot run at all; children-first still answers.
        JoinResult<User, Post> capped =
                Join.of(b -> b.client(es).maxParents(1_000)).childrenWhereParent(oldest);
        assertThat(capped.status()).isEqualTo(JoinResult.Status.COMPLETE);
        assertThat(answer(capped)).containsExactlyElementsOf(expected);
        JoinResult<User, Post> refused = Join.of(
                        b -> b.client(es).maxParents(1_000).maxProbedChildren(300))
                .childrenWhereParent(newest);
        assertThat(refused.status()).as(refused.describe()).isEqualTo(JoinResult.Status.CAP_EXCEEDED);
        assertThat(refused.advice()).contains("maxParents=1,000", "Denormalize", "children-first");
    }

    @Test
    void shouldBoundARepeatedReadOfTheNewestChildrenAndStayExactWhenChildrenComeAndGo() throws IOException {
        // Posts on a date field whose format has no epoch_millis, three posts per second (ties at every bound), on
        // two shards; the newest first, by the users of the blog (half of them women).
        es.indices()
                .create(c -> c.index("dated-posts")
                        .settings(s -> s.numberOfShards("2").numberOfReplicas("0"))
                        .mappings(m -> m.properties("title", p -> p.text(t -> t))
                                .properties("user_id", p -> p.keyword(k -> k))
                                .properties("at", p -> p.date(d -> d.format("yyyy-MM-dd HH:mm:ss")))
                                .properties("at_nanos", p -> p.dateNanos(d -> d))));
        Map<String, Object> dated = new LinkedHashMap<>();
        for (int j = 0; j < 600; j++) {
            dated.put("d" + j, datedPost(j));
        }
        bulk("dated-posts", dated);
        JoinQuery<User, DatedPost> newest = JoinQuery.of(
                User.class,
                DatedPost.class,
                b -> b.parents("users", q -> q.term(t -> t.field("gender").value("female")))
                        .children("dated-posts", "user_id")
                        .childQuery(q -> q.match(m -> m.field("title").query("relationships")))
                        .childSort(
                                SortOptions.of(s -> s.field(f -> f.field("at").order(SortOrder.Desc))))
                        .plan(JoinQuery.Plan.CHILDREN_FIRST)
                        .childrenPerPage(20));
        Join join = Join.of(b -> b.client(es));

        JoinResult<User, DatedPost> first = join.childrenWhereParent(newest);
        assertThat(first.requests().get(0)).as(first.requests().toString()).doesNotContain("bounded");
        assertThat(datedAnswer(first)).hasSize(20).isEqualTo(datedAnswer(keysFirst(newest)));
        // Asked again: the read of children stops where the first one ended, and answers the same.
        JoinResult<User, DatedPost> again = join.childrenWhereParent(newest);
        assertThat(again.requests().get(0)).as(again.requests().toString()).contains("(bounded)");
        assertThat(again.roundTrips()).isEqualTo(first.roundTrips());
        assertThat(datedAnswer(again)).isEqualTo(datedAnswer(first));

        // The newest 90 posts deleted: the bounded read comes back short, which is the start of the order and not
        // its end; the next page is read unbounded and the answer is that of the new state.
        List<BulkOperation> deletes = new ArrayList<>();
        for (int j = 510; j < 600; j++) {
            String id = "d" + j;
            deletes.add(
                    BulkOperation.of(o -> o.delete(d -> d.index("dated-posts").id(id))));
        }
        assertThat(es.bulk(b -> b.operations(deletes).refresh(Refresh.True)).errors())
                .isFalse();
        JoinResult<User, DatedPost> shorter = join.childrenWhereParent(newest);
        assertThat(shorter.requests().get(0)).as(shorter.requests().toString()).contains("(bounded)");
        assertThat(datedAnswer(shorter)).hasSize(20).isEqualTo(datedAnswer(keysFirst(newest)));
        assertThat(shorter.hasMoreChildren()).isTrue();
        // The short read turned bounding off for this read for a minute; a new Join learns it again.
        assertThat(join.childrenWhereParent(newest).requests().get(0)).doesNotContain("bounded");
        join = Join.of(b -> b.client(es));
        assertThat(join.childrenWhereParent(newest).requests().get(0)).doesNotContain("bounded");

        // Newer posts indexed: all of them pass the bound, and come first.
        Map<String, Object> newer = new LinkedHashMap<>();
        for (int j = 600; j < 630; j++) {
            newer.put("d" + j, datedPost(j));
        }
        bulk("dated-posts", newer);
        JoinResult<User, DatedPost> later = join.childrenWhereParent(newest);
        assertThat(later.requests().get(0)).as(later.requests().toString()).contains("(bounded)");
        assertThat(datedAnswer(later)).hasSize(20).isEqualTo(datedAnswer(keysFirst(newest)));
        assertThat(later.pairs().get(0).child().id()).isEqualTo("d627"); // newest "relationships" post

        // On a date_nanos field the sort values are nanoseconds, which the bound's epoch_millis filter reads as
        // milliseconds, out of the field's range: Elasticsearch refuses the bounded read, the first round trip is
        // sent again without the bound, the answer is still exact, and bounding stays off for the minute.
        JoinQuery<User, DatedPost> byNanos = newest.toBuilder()
                .childSort(SortOptions.of(s -> s.field(f -> f.field("at_nanos").order(SortOrder.Desc))))
                .build();
        List<String> nanosExpected = datedAnswer(keysFirst(byNanos));
        assertThat(nanosExpected).isEqualTo(datedAnswer(later));
        for (int i = 0; i < 3; i++) {
            JoinResult<User, DatedPost> r = join.childrenWhereParent(byNanos);
            assertThat(datedAnswer(r)).as(r.requests().toString()).isEqualTo(nanosExpected);
            if (i == 1) {
                assertThat(r.requests()).hasSize(2);
                assertThat(r.requests().get(0)).contains("(bounded)");
                assertThat(r.requests().get(1)).doesNotContain("bounded");
            }
            if (i == 2) {
                assertThat(r.requests().get(0)).doesNotContain("bounded");
            }
        }
    }

    @Test
    void shouldCheckTheKeysTheLastReadFoundInTheFirstRoundTripAndStayExactWhenParentsAndChildrenChange()
            throws IOException {
        // Parents of their own (this test edits them); a preview of 5 keys, fewer than the 20 women, so that the
        // join reads the newest posts first and checks their authors.
        createUsers("checked-users", 1, Map.of());
        createPosts("checked-posts", 2, Map.of());
        bulk("checked-users", IntStream.range(0, USERS).boxed().collect(Collectors.toMap(i -> "u" + i, users::get)));
        bulk("checked-posts", IntStream.range(0, POSTS).boxed().collect(Collectors.toMap(j -> "p" + j, posts::get)));
        JoinQuery<User, Post> newestByWomen = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents(
                                "checked-users",
                                q -> q.term(t -> t.field("gender").value("female")))
                        .children("checked-posts", "user_id")
                        .childSort(
                                SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc))))
                        .childrenPerPage(10));
        Join join = Join.of(b -> b.client(es).pageSize(5));

        JoinResult<User, Post> first = join.childrenWhereParent(newestByWomen);
        assertThat(first.plan()).isEqualTo(JoinQuery.Plan.CHILDREN_FIRST);
        assertThat(first.roundTrips()).as(first.requests().toString()).isEqualTo(2);
        assertThat(answer(first)).hasSize(10).isEqualTo(answer(keysFirst(newestByWomen)));

        // Asked again: the authors the first read found are checked beside the read of the posts, in one round trip.
        JoinResult<User, Post> again = join.childrenWhereParent(newestByWomen);
        assertThat(again.requests()).hasSize(1);
        assertThat(again.requests().get(0)).contains("matching parents of the last read's");
        assertThat(answer(again)).isEqualTo(answer(first));

        // An author of the page is no longer a woman: the check runs now, not a minute ago, and drops her posts.
        String gone = first.pairs().get(0).parent().id();
        es.update(
                u -> u.index("checked-users")
                        .id(gone)
                        .doc(Map.of("gender", "male"))
                        .refresh(Refresh.True),
                Map.class);
        JoinResult<User, Post> fewer = join.childrenWhereParent(newestByWomen);
        assertThat(fewer.requests()).as(fewer.requests().toString()).hasSize(1);
        assertThat(answer(fewer))
                .isEqualTo(answer(keysFirst(newestByWomen)))
                .noneMatch(a -> a.contains("<-" + gone + ":"));

        // A new woman writes the newest post: her key was not in the last read, and only it is checked next.
        es.index(i -> i.index("checked-users")
                .id("u-new")
                .document(new User("Ada Newcomer", "female", "hnew", USERS))
                .refresh(Refresh.True));
        es.index(i -> i.index("checked-posts")
                .id("p-new")
                .document(new Post("hello", "u-new", "hnew", 1, 2_000_000L, new Author("Ada Newcomer", "female")))
                .refresh(Refresh.True));
        JoinResult<User, Post> newer = join.childrenWhereParent(newestByWomen);
        assertThat(newer.requests()).hasSize(2);
        assertThat(newer.requests().get(1)).contains("matching parents of 1 new children's keys");
        assertThat(newer.pairs().get(0).child().id()).isEqualTo("p-new");
        assertThat(answer(newer)).isEqualTo(answer(keysFirst(newestByWomen)));
        // And then it is known.
        assertThat(join.childrenWhereParent(newestByWomen).requests()).hasSize(1);
        es.indices().delete(d -> d.index("checked-users", "checked-posts"));
    }

    @Test
    void shouldSendTheSecondRoundTripOfAKeysFirstAnswerInTheFirstWhenAskedAgainAndStayExact() throws IOException {
        // Two authors of forty (parents of its own: this test edits them): keys-first, from the preview's keys.
        createUsers("few-users", 1, Map.of());
        bulk("few-users", IntStream.range(0, USERS).boxed().collect(Collectors.toMap(i -> "u" + i, users::get)));
        JoinQuery<User, Post> twoAuthors = JoinQuery.of(
                User.class,
                Post.class,
                b -> b.parents(
                                "few-users",
                                q -> q.terms(t ->
                                        t.field("n").terms(v -> v.value(List.of(FieldValue.of(3), FieldValue.of(17))))))
                        .children("posts", "user_id")
                        .childSort(
                                SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc))))
                        .childrenPerPage(10));
        Join join = Join.of(b -> b.client(es));

        JoinResult<User, Post> first = join.childrenWhereParent(twoAuthors);
        assertThat(first.plan()).isEqualTo(JoinQuery.Plan.KEYS_FIRST);
        assertThat(first.roundTrips()).as(first.requests().toString()).isEqualTo(2);
        assertThat(answer(first)).hasSize(10).isEqualTo(answer(keysFirst(twoAuthors)));

        // Asked again: one round trip counts that the last answer's keys still match (no parent read for it), that the
        // last page's parents are as read (their _seq_no), and reads their children.
        JoinResult<User, Post> again = join.childrenWhereParent(twoAuthors);
        assertThat(again.requests()).as(again.requests().toString()).hasSize(1);
        assertThat(again.requests().get(0))
                .contains(
                        "check that the last answer's 2 parent keys still match and its page's 2 parents are unchanged",
                        "in 2 searches");
        assertThat(again.parentsMatched()).isEqualTo(2);
        assertThat(again.parentsRead()).isZero();
        assertThat(answer(again)).isEqualTo(answer(first));

        // A parent edited within the condition: the keys hold, but the page's parents changed; they are read in a
        // second round trip, as they are now.
        es.update(
                u -> u.index("few-users")
                        .id("u3")
                        .doc(Map.of("name", "Renamed Three"))
                        .refresh(Refresh.True),
                Map.class);
        JoinResult<User, Post> renamed = join.childrenWhereParent(twoAuthors);
        assertThat(renamed.requests()).as(renamed.requests().toString()).hasSize(2);
        assertThat(renamed.requests().get(1)).contains("the 2 parent(s) of the page");
        assertThat(answer(renamed)).isEqualTo(answer(keysFirst(twoAuthors))).anyMatch(a -> a.contains("Renamed Three"));
        // Parents that just changed are read beside the check next time (one round trip, three searches), and checked
        // again, not read, once they held still.
        JoinResult<User, Post> readBeside = join.childrenWhereParent(twoAuthors);
        assertThat(readBeside.requests()).as(readBeside.requests().toString()).hasSize(1);
        assertThat(readBeside.requests().get(0)).contains("and the 2 parents of its page in 3 searches");
        assertThat(answer(readBeside)).isEqualTo(answer(renamed));
        JoinResult<User, Post> checkedAgain = join.childrenWhereParent(twoAuthors);
        assertThat(checkedAgain.requests().get(0)).contains("its page's 2 parents are unchanged");
        assertThat(checkedAgain.parentsRead()).isZero();
        assertThat(answer(checkedAgain)).isEqualTo(answer(renamed));

        // The same question with the parents' sources trimmed: its keys are the same, but not its parents as read.
        JoinQuery<User, Post> namesOnly = twoAuthors.toBuilder()
                .parentSource(SourceConfig.of(src -> src.filter(f -> f.includes("name"))))
                .build();
        JoinResult<User, Post> trimmed = join.childrenWhereParent(namesOnly);
        assertThat(trimmed.requests().get(0)).as(trimmed.requests().toString()).doesNotContain("are unchanged");
        assertThat(trimmed.pairs())
                .allSatisfy(p -> assertThat(p.parent().value().handle()).isNull());
        assertThat(join.childrenWhereParent(twoAuthors).pairs())
                .allSatisfy(p -> assertThat(p.parent().value().handle()).isNotNull());

        // A parent deleted and written again as it was: the same source, but another document (a new _seq_no), so it
        // is read again, not taken from the last read.
        Map<?, ?> u17 = es.get(g -> g.index("few-users").id("u17"), Map.class).source();
        es.delete(d -> d.index("few-users").id("u17").refresh(Refresh.True));
        es.index(i -> i.index("few-users").id("u17").document(u17).refresh(Refresh.True));
        JoinResult<User, Post> rewritten = join.childrenWhereParent(twoAuthors);
        assertThat(rewritten.requests()).as(rewritten.requests().toString()).hasSize(2);
        assertThat(rewritten.parentsRead()).isEqualTo(2);
        assertThat(answer(rewritten)).isEqualTo(answer(renamed));

        // A third author matches now: the check fails, and the join is read as the first time (a round trip more).
        es.update(u -> u.index("few-users").id("u5").doc(Map.of("n", 3)).refresh(Refresh.True), Map.class);
        JoinResult<User, Post> three = join.childrenWhereParent(twoAuthors);
        assertThat(three.requests()).as(three.requests().toString()).hasSize(3);
        assertThat(three.parentsMatched()).isEqualTo(3);
        assertThat(answer(three)).isEqualTo(answer(keysFirst(twoAuthors))).anyMatch(a -> a.contains("<-u5:"));
        assertThat(join.childrenWhereParent(twoAuthors).requests()).hasSize(1);

        // One of them deleted: the keys no longer all name a matching parent, and the join reads anew.
        es.delete(d -> d.index("few-users").id("u5").refresh(Refresh.True));
        JoinResult<User, Post> deleted = join.childrenWhereParent(twoAuthors);
        assertThat(deleted.requests()).as(deleted.requests().toString()).hasSize(3);
        assertThat(answer(deleted))
                .hasSize(10)
                .isEqualTo(answer(keysFirst(twoAuthors)))
                .noneMatch(a -> a.contains("<-u5:"));
        // A page whose parent was not on the last page: u3 and u4, who has written nothing yet, then writes the newest
        // post. The keys and their check still hold; the new page's parent is read in a second round trip.
        JoinQuery<User, Post> withChildless = twoAuthors.toBuilder()
                .parents(
                        "few-users",
                        q -> q.terms(t ->
                                t.field("n").terms(v -> v.value(List.of(FieldValue.of(3), FieldValue.of(CHILDLESS))))))
                .build();
        join.childrenWhereParent(withChildless);
        JoinResult<User, Post> one = join.childrenWhereParent(withChildless);
        assertThat(one.requests()).as(one.requests().toString()).hasSize(1);
        assertThat(one.pairs()).extracting(p -> p.parent().id()).containsOnly("u3");
        es.index(i -> i.index("posts")
                .id("p-by-childless")
                .document(
                        new Post("hello", "u" + CHILDLESS, "h04", 1, 3_000_000L, new Author("John Surname4", "female")))
                .refresh(Refresh.True));
        try {
            JoinResult<User, Post> newPage = join.childrenWhereParent(withChildless);
            assertThat(newPage.requests()).as(newPage.requests().toString()).hasSize(2);
            assertThat(newPage.requests().get(1)).contains("the 1 parent(s) of the page");
            assertThat(answer(newPage)).isEqualTo(answer(keysFirst(withChildless)));
            assertThat(newPage.pairs().get(0).child().id()).isEqualTo("p-by-childless");
        } finally {
            es.delete(d -> d.index("posts").id("p-by-childless").refresh(Refresh.True));
        }
        es.indices().delete(d -> d.index("few-users"));
    }

    record DatedPost(String title, String user_id, String at, String at_nanos) {}

    private static DatedPost datedPost(int j) {
        java.time.LocalDateTime at =
                java.time.LocalDateTime.of(2026, 12, 5, 0, 0).plusSeconds(j / 3);
        return new DatedPost(
                j % 3 == 0 ? "relationships are complicated" : "another topic",
                "u" + (j * 7 + 1) % USERS,
                at.format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")),
                at.plusNanos(j % 3)
                        .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'")));
    }

    private static <C> JoinResult<User, C> keysFirst(JoinQuery<User, C> q) {
        return Join.of(b -> b.client(es))
                .childrenWhereParent(
                        q.toBuilder().plan(JoinQuery.Plan.KEYS_FIRST).build());
    }

    private static List<String> datedAnswer(JoinResult<User, DatedPost> r) {
        return r.pairs().stream()
                .map(p -> p.child().id() + "<-" + p.parent().id())
                .toList();
    }

    private static List<String> answer(JoinResult<User, Post> r) {
        return r.pairs().stream()
                .map(p -> p.child().id() + "<-" + p.parent().id() + ":"
                        + p.parent().value())
                .toList();
    }

    // --- failures ------------------------------------------------------------------------------

    @Test
    void shouldNameAMissingIndex() {
        Join join = Join.of(b -> b.client(es));
        assertThatThrownBy(() ->
                        join.childrenWhereParent(everyone(b -> b.parents("no-such-users", q -> q.matchAll(m -> m)))))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("no such index [no-such-users]")
                .satisfies(e -> assertThat(((JoinException) e).status()).isEqualTo(404));
        assertThatThrownBy(() -> join.childrenWhereParent(
                        everyoneWhere(b -> b.parents("no-such-users", q -> q.matchAll(m -> m)))))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("no such index [no-such-users]")
                .satisfies(e -> assertThat(((JoinException) e).status()).isEqualTo(404));
    }

    @Test
    void shouldFailRatherThanJoinTheChildrenOfTheShardsThatAnswered() throws IOException {
        // A child index whose title is a number: a match on it fails on that index's shard only, and Elasticsearch
        // answers with the hits of the other shards unless told not to. A join on that answer would be short.
        es.indices()
                .create(c -> c.index("posts-numbered")
                        .settings(s -> s.numberOfShards("1").numberOfReplicas("0"))
                        .mappings(m -> m.properties("title", p -> p.long_(l -> l))
                                .properties("user_id", p -> p.keyword(k -> k))));
        try {
            Join join = Join.of(b -> b.client(es));
            for (JoinQuery.Plan plan : JoinQuery.Plan.values()) {
                assertThatThrownBy(() -> join.childrenWhereParent(everyoneWhere(b -> b.children(
                                        "posts,posts-numbered", "user_id")
                                .childQuery(c -> c.match(m -> m.field("title").query("relationships complicated")))
                                .plan(plan))))
                        .as(plan.toString())
                        .isInstanceOf(JoinException.class)
                        .hasMessageContaining("1 of 4 shards failed")
                        .hasMessageContaining("[posts-numbered] on node")
                        .satisfies(e -> assertThat(((JoinException) e).status()).isEqualTo(400));
            }
        } finally {
            es.indices().delete(d -> d.index("posts-numbered"));
        }
    }

    @Test
    void shouldExplainThatTheChildKeyMustBeAKeywordToCollapseOn() {
        Join join = Join.of(b -> b.client(es));
        assertThatThrownBy(() -> join.childrenOf(everyoneWhere(b -> b.children("posts", "title"))))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("keyword or numeric")
                .satisfies(e -> assertThat(((JoinException) e).status()).isEqualTo(400));
    }

    /** A class whose field cannot hold the stored value. */
    record BadUser(java.time.Duration name) {}

    @Test
    void shouldReportASourceThatDoesNotMapToTheDocumentClass() {
        Join join = Join.of(b -> b.client(es));
        assertThatThrownBy(() -> join.childrenWhereParent(JoinQuery.of(
                        BadUser.class,
                        Post.class,
                        b -> b.parents("users", q -> q.matchAll(m -> m)).children("posts", "user_id"))))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("cannot map");
    }

    // --- helpers -----------------------------------------------------------------------------

    private static JoinQuery<User, Post> johns(
            Function<JoinQuery.Builder<User, Post>, JoinQuery.Builder<User, Post>> more) {
        return more.apply(JoinQuery.builder(User.class, Post.class)
                        .parents("users", q -> q.match(m -> m.field("name").query("John")))
                        .parentSort(SortOptions.of(s -> s.field(f -> f.field("handle"))))
                        .children("posts", "user_id")
                        .childSort(SortOptions.of(
                                s -> s.field(f -> f.field("popularity").order(SortOrder.Desc)))))
                .build();
    }

    private static JoinQuery<User, Post> everyone(
            Function<JoinQuery.Builder<User, Post>, JoinQuery.Builder<User, Post>> more) {
        return more.apply(JoinQuery.builder(User.class, Post.class)
                        .parents("users", q -> q.matchAll(m -> m))
                        .parentSort(SortOptions.of(s -> s.field(f -> f.field("handle"))))
                        .children("posts", "user_id"))
                .build();
    }

    /** Every user's posts, joined keys-first: the tests of that plan's mechanics (batches, round trips) pin it. */
    private static JoinQuery<User, Post> everyoneWhere(
            Function<JoinQuery.Builder<User, Post>, JoinQuery.Builder<User, Post>> more) {
        return everyone(b -> more.apply(b.plan(JoinQuery.Plan.KEYS_FIRST)));
    }

    private static JoinQuery<User, Post> popularByWomen(
            Function<JoinQuery.Builder<User, Post>, JoinQuery.Builder<User, Post>> more) {
        return more.apply(JoinQuery.builder(User.class, Post.class)
                        .parents("users", q -> q.term(t -> t.field("gender").value("female")))
                        .children("posts", "user_id")
                        .childQuery(ClientApi.range("popularity", true, 300))
                        .childSort(SortOptions.of(
                                s -> s.field(f -> f.field("popularity").order(SortOrder.Desc)))))
                .build();
    }

    /** The same question asked of the denormalized posts: one query. */
    private static List<String> denormalizedPopularByWomen(String index, int from, int size) throws IOException {
        return es
                .search(
                        s -> s.index(index)
                                .from(from)
                                .size(size)
                                .query(q -> q.bool(b -> b.filter(f -> f.term(
                                                t -> t.field("user.gender").value("female")))
                                        .must(ClientApi.range("popularity", true, 300))))
                                .sort(so -> so.field(f -> f.field("popularity").order(SortOrder.Desc))),
                        Post.class)
                .hits()
                .hits()
                .stream()
                .map(Hit::id)
                .toList();
    }

    private static java.util.stream.Stream<Post> postsOf(User u) {
        return posts.stream().filter(p -> p.user_id().equals("u" + u.n()));
    }

    private static Comparator<Post> byPopularity() {
        return Comparator.comparingInt(Post::popularity).reversed();
    }

    static void createUsers(String index, int shards, Map<String, String> settings) throws IOException {
        es.indices()
                .create(c -> c.index(index)
                        .settings(s -> {
                            s.numberOfShards(String.valueOf(shards)).numberOfReplicas("0");
                            settings.forEach((k, v) -> s.otherSettings(k, co.elastic.clients.json.JsonData.of(v)));
                            return s;
                        })
                        .mappings(TypeMapping.of(m -> m.properties(
                                        "name", p -> p.text(t -> t.fields("raw", f -> f.keyword(k -> k))))
                                .properties("gender", p -> p.keyword(k -> k))
                                .properties("handle", p -> p.keyword(k -> k))
                                .properties("n", p -> p.integer(i -> i)))));
    }

    static void createPosts(String index, int shards, Map<String, String> settings) throws IOException {
        es.indices()
                .create(c -> c.index(index)
                        .settings(s -> {
                            s.numberOfShards(String.valueOf(shards)).numberOfReplicas("0");
                            settings.forEach((k, v) -> s.otherSettings(k, co.elastic.clients.json.JsonData.of(v)));
                            return s;
                        })
                        .mappings(TypeMapping.of(m -> m.properties("title", p -> p.text(t -> t))
                                .properties("user_id", p -> p.keyword(k -> k))
                                .properties("user_handle", p -> p.keyword(k -> k))
                                .properties("popularity", p -> p.integer(i -> i))
                                .properties("date", p -> p.long_(l -> l))
                                .properties(
                                        "user",
                                        p -> p.object(o -> o.properties(
                                                        "name",
                                                        x -> x.text(t -> t.fields("raw", f -> f.keyword(k -> k))))
                                                .properties("gender", x -> x.keyword(k -> k)))))));
    }

    static void bulk(String index, Map<String, Object> docs) throws IOException {
        List<BulkOperation> ops = new ArrayList<>();
        List<Map.Entry<String, Object>> entries = new ArrayList<>(docs.entrySet());
        for (int from = 0; from < entries.size(); from += 5_000) {
            ops.clear();
            for (Map.Entry<String, Object> e : entries.subList(from, Math.min(from + 5_000, entries.size()))) {
                ops.add(BulkOperation.of(
                        o -> o.index(i -> i.index(index).id(e.getKey()).document(e.getValue()))));
            }
            BulkResponse r = es.bulk(b -> b.operations(ops));
            assertThat(r.errors()).as("bulk into " + index).isFalse();
        }
        es.indices().refresh(r -> r.index(index));
    }
}
