package io.github.esrel.join;

import static io.github.esrel.join.Blog.bulk;
import static io.github.esrel.join.Blog.createPosts;
import static io.github.esrel.join.Blog.createUsers;
import static io.github.esrel.join.BlogQuestions.answer;
import static io.github.esrel.join.BlogQuestions.denormalizedPopularByWomen;
import static io.github.esrel.join.BlogQuestions.johns;
import static io.github.esrel.join.BlogQuestions.popularByWomen;
import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.join.Blog.Post;
import io.github.esrel.join.Blog.User;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plans of {@link Join#childrenWhereParent}: every plan gives the same answer, and {@link JoinQuery.Plan#AUTO}
 * picks keys-first or children-first from the share of parents that match (learnt for the next call), and falls back
 * to keys-first when children-first reaches its budget.
 *
 * <p>On the node the join ITs share, with its {@link Blog} (written once for all of them).
 */
@EsrelTest
class JoinPlansIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ElasticsearchClient es;

    @BeforeAll
    static void blog() throws IOException {
        es = cluster.client();
        Blog.seed(es);
    }

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
                .containsExactlyElementsOf(denormalizedPopularByWomen(es, "posts", 0, 20));
        // h04 wrote nothing: no pairs, and every plan says so.
        assertThat(join.childrenWhereParent(questions.get(5)).pairs()).isEmpty();
    }

    @Test
    void shouldPickThePlanFromTheShareOfMatchingParents() throws IOException {
        // 3,000 users, 40% women (more than AUTO's preview of 512 keys); 6,000 posts, 2 per user; the
        // newest 1,000 posts are all by men.
        int n = 3_000;
        createUsers(es, "wide-users", 2, Map.of());
        createPosts(es, "wide-posts", 2, Map.of());
        Map<String, Object> wideUsers = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            wideUsers.put("w" + i, new User("User " + i, i % 5 < 2 ? "female" : "male", String.format("w%05d", i), i));
        }
        bulk(es, "wide-users", wideUsers);
        Map<String, Object> widePosts = new LinkedHashMap<>();
        for (int j = 0; j < 2 * n; j++) {
            int u = j < 5_000 ? j % n : 5 * (j % 600) + 2 + j % 3; // i % 5 in {2,3,4}: men
            widePosts.put("y" + j, new Post("post " + j, "w" + u, String.format("w%05d", u), j % 100, j, null));
        }
        bulk(es, "wide-posts", widePosts);
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
}
