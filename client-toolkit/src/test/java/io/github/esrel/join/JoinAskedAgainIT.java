package io.github.esrel.join;

import static io.github.esrel.join.Blog.CHILDLESS;
import static io.github.esrel.join.Blog.POSTS;
import static io.github.esrel.join.Blog.USERS;
import static io.github.esrel.join.Blog.bulk;
import static io.github.esrel.join.Blog.createPosts;
import static io.github.esrel.join.Blog.createUsers;
import static io.github.esrel.join.Blog.posts;
import static io.github.esrel.join.Blog.users;
import static io.github.esrel.join.BlogQuestions.answer;
import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.SourceConfig;
import io.github.esrel.join.Blog.Author;
import io.github.esrel.join.Blog.Post;
import io.github.esrel.join.Blog.User;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A question asked again within the minute: its first round trip carries what the last answer found, and the answer
 * stays exact while the data changes. A read of the newest children bounded by the last one, as children come and
 * go; the keys the last read found checked in the first round trip, as parents and children change; a keys-first
 * answer's second round trip sent in the first, as parents are edited, deleted and written again, or join the
 * condition.
 *
 * <p>On the node the join ITs share, with its {@link Blog} (written once for all of them).
 */
@EsrelTest
class JoinAskedAgainIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ElasticsearchClient es;

    @BeforeAll
    static void blog() throws IOException {
        es = cluster.client();
        Blog.seed(es);
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
        bulk(es, "dated-posts", dated);
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
        bulk(es, "dated-posts", newer);
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
        createUsers(es, "checked-users", 1, Map.of());
        createPosts(es, "checked-posts", 2, Map.of());
        bulk(
                es,
                "checked-users",
                IntStream.range(0, USERS).boxed().collect(Collectors.toMap(i -> "u" + i, users::get)));
        bulk(
                es,
                "checked-posts",
                IntStream.range(0, POSTS).boxed().collect(Collectors.toMap(j -> "p" + j, posts::get)));
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
                User.class);
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
        createUsers(es, "few-users", 1, Map.of());
        bulk(es, "few-users", IntStream.range(0, USERS).boxed().collect(Collectors.toMap(i -> "u" + i, users::get)));
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
                User.class);
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
        es.update(u -> u.index("few-users").id("u5").doc(Map.of("n", 3)).refresh(Refresh.True), User.class);
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
}
