package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.mapping.TypeMapping;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.Hit;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Field collapsing on a real node (seed 000 §1.3, "group blog posts by author, best author first"):
 * the {@code collapse} form checked against a plain search grouped by hand, and the seed's
 * {@code terms} + {@code max(_score)} + {@code top_hits} form (script-free here: the node has no
 * painless) giving the same groups on the same data, on a three-shard index.
 */
@EsrelTest
class CollapsingIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private static ElasticsearchClient es;

    /** A post, with its author's name copied in (as the seed maps {@code user.name.raw}). */
    record Post(String title, String author, Integer author_n, long date) {}

    static final int AUTHORS = 12;
    static final Map<String, Post> posts = new LinkedHashMap<>();

    @BeforeAll
    static void posts() throws IOException {
        es = cluster.client();
        es.indices()
                .create(c -> c.index("gposts")
                        .settings(s -> s.numberOfShards("3").numberOfReplicas("0"))
                        .mappings(TypeMapping.of(m -> m.properties("title", p -> p.text(t -> t))
                                .properties("author", p -> p.text(t -> t.fields("raw", f -> f.keyword(k -> k))))
                                .properties("author_n", p -> p.integer(i -> i))
                                .properties("date", p -> p.long_(l -> l)))));
        Random random = new Random(42);
        String[] words = {"relationships", "elasticsearch", "modeling", "data", "search", "joins"};
        for (int i = 0; i < 300; i++) {
            int author = random.nextInt(AUTHORS);
            StringBuilder title = new StringBuilder();
            int length = 2 + random.nextInt(12);
            for (int w = 0; w < length; w++) {
                title.append(words[random.nextInt(words.length)]).append(' ');
            }
            title.append("w").append(i); // every title is different, and so is every score
            boolean anonymous = i % 50 == 7;
            posts.put(
                    "p" + i,
                    new Post(
                            title.toString(),
                            anonymous ? null : "Author " + (char) ('A' + author),
                            anonymous ? null : author,
                            1_000 + i));
        }
        List<BulkOperation> ops = new ArrayList<>();
        posts.forEach((id, p) -> ops.add(
                BulkOperation.of(o -> o.index(i -> i.index("gposts").id(id).document(p)))));
        assertThat(es.bulk(b -> b.operations(ops)).errors()).isFalse();
        es.indices().refresh(r -> r.index("gposts"));
    }

    private static final Query RELATIONSHIPS =
            Query.of(q -> q.match(m -> m.field("title").query("relationships")));
    private static final Query TWO_WORDS = Query.of(q ->
            q.bool(b -> b.should(s -> s.match(m -> m.field("title").query("joins")))
                    .should(s -> s.match(m -> m.field("title").query("modeling data")))));

    @Test
    void shouldReturnTheTopPostsPerAuthorOrderedByEachAuthorsBestScore() throws IOException {
        Grouping grouping = Grouping.of(b -> b.client(es));
        Groups<Post> g = grouping.collapse(GroupQuery.of(
                Post.class,
                q -> q.index("gposts")
                        .query(RELATIONSHIPS)
                        .field("author.raw")
                        .groups(5)
                        .perGroup(3)));

        List<Group<String>> expected = byHand(RELATIONSHIPS, "author.raw", 3);
        assertThat(g.form()).isEqualTo(Groups.Form.COLLAPSE);
        assertThat(g.roundTrips()).isEqualTo(1);
        assertThat(g.exact()).isTrue();
        assertThat(g.groups()).hasSize(5);
        for (int i = 0; i < 5; i++) {
            Group<Post> actual = g.groups().get(i);
            Group<String> want = expected.get(i);
            assertThat(actual.key()).isEqualTo(want.key());
            assertThat(actual.total()).isEqualTo(want.total());
            assertThat(actual.bestScore()).isCloseTo(want.bestScore(), within(1e-4));
            assertThat(actual.hits()).extracting(Doc::id).containsExactlyElementsOf(want.values());
            assertThat(actual.values()).allSatisfy(p -> assertThat(p.author()).isEqualTo(want.key()));
        }
    }

    @Test
    void shouldGiveTheSameGroupsWithTheSeedsTermsFormAsWithCollapse() {
        Grouping grouping = Grouping.of(b -> b.client(es));
        for (Query query : List.of(RELATIONSHIPS, TWO_WORDS)) {
            for (String field : List.of("author.raw", "author_n")) {
                GroupQuery<Post> q = GroupQuery.of(
                        Post.class,
                        b -> b.index("gposts")
                                .query(query)
                                .field(field)
                                .groups(AUTHORS)
                                .perGroup(4));
                Groups<Post> collapsed = grouping.collapse(q);
                Groups<Post> terms = grouping.termsAggregation(q);
                assertThat(terms.form()).isEqualTo(Groups.Form.TERMS_CLIENT_ORDERED);
                assertThat(terms.exact()).isTrue();
                assertSameGroups(terms, collapsed);
                assertThat(terms.totalHits()).isEqualTo(collapsed.totalHits()).isEqualTo(matchingWithAuthor(query));
            }
        }
    }

    @Test
    void shouldPageThroughGroupsAlikeInBothForms() {
        Grouping grouping = Grouping.of(b -> b.client(es));
        GroupQuery<Post> q = GroupQuery.of(
                Post.class,
                b -> b.index("gposts")
                        .query(RELATIONSHIPS)
                        .field("author.raw")
                        .from(3)
                        .groups(4)
                        .perGroup(2));
        Groups<Post> collapsed = grouping.collapse(q);
        assertThat(collapsed.groups()).hasSize(4);
        assertSameGroups(grouping.termsAggregation(q), collapsed);
        Groups<Post> all = grouping.collapse(GroupQuery.of(
                Post.class,
                b -> b.index("gposts")
                        .query(RELATIONSHIPS)
                        .field("author.raw")
                        .groups(AUTHORS)
                        .perGroup(2)));
        assertThat(collapsed.keys()).isEqualTo(all.keys().subList(3, 7));
    }

    @Test
    void shouldOrderPostsWithinAGroupByTheGivenSortInBothForms() {
        Grouping grouping = Grouping.of(b -> b.client(es));
        GroupQuery<Post> q = GroupQuery.of(
                Post.class,
                b -> b.index("gposts")
                        .query(RELATIONSHIPS)
                        .field("author.raw")
                        .groups(AUTHORS)
                        .perGroup(3)
                        .perGroupSort(
                                SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc)))));
        Groups<Post> collapsed = grouping.collapse(q);
        assertSameGroups(grouping.termsAggregation(q), collapsed);
        for (Group<Post> group : collapsed.groups()) {
            List<Long> dates = group.values().stream().map(Post::date).toList();
            assertThat(dates).isSortedAccordingTo(Comparator.reverseOrder());
        }
        // Groups are still ordered by their best score, not by date.
        Groups<Post> byScore = grouping.collapse(GroupQuery.of(
                Post.class,
                b -> b.index("gposts")
                        .query(RELATIONSHIPS)
                        .field("author.raw")
                        .groups(AUTHORS)
                        .perGroup(3)));
        assertThat(collapsed.keys()).isEqualTo(byScore.keys());
    }

    @Test
    void shouldLeaveOutPostsWithoutAnAuthorInBothForms() {
        Grouping grouping = Grouping.of(b -> b.client(es));
        GroupQuery<Post> q = GroupQuery.of(
                Post.class,
                b -> b.index("gposts").field("author.raw").groups(100).perGroup(1));
        long grouped = posts.values().stream().filter(p -> p.author() != null).count();
        Groups<Post> collapsed = grouping.collapse(q);
        Groups<Post> terms = grouping.termsAggregation(q);
        assertThat(collapsed.groups().stream().mapToLong(Group::total).sum()).isEqualTo(grouped);
        assertThat(terms.groups().stream().mapToLong(Group::total).sum()).isEqualTo(grouped);
        assertThat(collapsed.keys()).doesNotContain("").hasSize(AUTHORS);
        assertThat(terms.keys()).containsExactlyInAnyOrderElementsOf(collapsed.keys());
    }

    @Test
    void shouldFallBackFromTheScriptedSeedFormOnceOnAClusterWithoutPainless() {
        Grouping auto = Grouping.of(b -> b.client(es));
        GroupQuery<Post> q = GroupQuery.of(
                Post.class, b -> b.index("gposts").query(RELATIONSHIPS).field("author.raw"));
        Groups<Post> first = auto.termsAggregation(q);
        assertThat(first.form()).isEqualTo(Groups.Form.TERMS_CLIENT_ORDERED);
        assertThat(first.roundTrips()).isEqualTo(2);
        assertThat(first.requests().get(0)).contains("max(_score) (painless)");
        assertThat(first.note()).contains("painless");
        Groups<Post> second = auto.termsAggregation(q);
        assertThat(second.roundTrips()).isEqualTo(1);
        assertThat(second.keys()).isEqualTo(first.keys());

        Grouping scripted = Grouping.of(b -> b.client(es).termsOrdering(Grouping.TermsOrdering.SCRIPT));
        assertThatThrownBy(() -> scripted.termsAggregation(q))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("lang-painless")
                .hasMessageContaining("script_lang not supported [painless]");
    }

    @Test
    void shouldSayWhenTheTermsFormMetMoreGroupsThanItsBucketLimit() {
        Grouping small = Grouping.of(b -> b.client(es).maxBuckets(3).termsOrdering(Grouping.TermsOrdering.CLIENT));
        Groups<Post> g = small.termsAggregation(GroupQuery.of(
                Post.class,
                b -> b.index("gposts").query(RELATIONSHIPS).field("author.raw").groups(3)));
        assertThat(g.exact()).isFalse();
        assertThat(g.note()).contains("maxBuckets=3", "collapse");
        assertThat(g.roundTrips()).isEqualTo(1);
    }

    @Test
    void shouldExplainAFieldThatCannotBeGroupedOn() {
        Grouping grouping = Grouping.of(b -> b.client(es));
        assertThatThrownBy(() -> grouping.collapse(
                        GroupQuery.of(Post.class, b -> b.index("gposts").field("title"))))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("keyword or numeric");
        assertThatThrownBy(() -> grouping.collapse(
                        GroupQuery.of(Post.class, b -> b.index("no-such-posts").field("a"))))
                .isInstanceOf(JoinException.class)
                .hasMessageContaining("no such index [no-such-posts]");
    }

    // --- helpers -------------------------------------------------------------------------------

    private static void assertSameGroups(Groups<Post> actual, Groups<Post> expected) {
        assertThat(actual.keys()).isEqualTo(expected.keys());
        for (int i = 0; i < expected.groups().size(); i++) {
            Group<Post> a = actual.groups().get(i);
            Group<Post> e = expected.groups().get(i);
            assertThat(a.total()).as(e.key()).isEqualTo(e.total());
            assertThat(a.bestScore()).as(e.key()).isCloseTo(e.bestScore(), within(1e-4));
            assertThat(a.hits())
                    .extracting(Doc::id)
                    .as(e.key())
                    .containsExactlyElementsOf(e.hits().stream().map(Doc::id).toList());
            assertThat(a.values()).isEqualTo(e.values());
        }
    }

    /** Groups computed from a plain search of every match: key, best score, total, top ids by score. */
    private static List<Group<String>> byHand(Query query, String field, int perGroup) throws IOException {
        List<Hit<Post>> hits = es.search(s -> s.index("gposts").query(query).size(1000), Post.class)
                .hits()
                .hits();
        Map<String, List<Hit<Post>>> groups = new LinkedHashMap<>();
        for (Hit<Post> h : hits) { // best score first
            if (h.source().author() != null) {
                groups.computeIfAbsent(h.source().author(), k -> new ArrayList<>())
                        .add(h);
            }
        }
        List<Group<String>> out = new ArrayList<>();
        groups.forEach((key, list) -> out.add(new Group<>(
                key,
                list.get(0).score(),
                list.size(),
                list.stream()
                        .limit(perGroup)
                        .map(h -> new Doc<>(h.index(), h.id(), h.score(), null, h.id()))
                        .toList())));
        out.sort(Comparator.comparingDouble(g -> -g.bestScore()));
        assertThat(field).isEqualTo("author.raw");
        return out;
    }

    private static long matchingWithAuthor(Query query) {
        try {
            return es.count(c -> c.index("gposts")
                            .query(q -> q.bool(b -> b.must(query).filter(n -> n.exists(e -> e.field("author.raw"))))))
                    .count();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
