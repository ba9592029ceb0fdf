package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.Time;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.json.JsonpUtils;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The searches joins and groupings send, as JSON. */
class JoinRequestsTest {

    record User(String name) {}

    record Post(String title) {}

    private static final Query JOHN = Query.of(q -> q.match(m -> m.field("name").query("John")));
    private static final Query RELATIONSHIPS =
            Query.of(q -> q.match(m -> m.field("title").query("relationships")));
    private static final Time KEEP = Time.of(t -> t.time("60s"));

    private static JsonNode json(SearchRequest r) throws Exception {
        return new ObjectMapper().readTree(JsonpUtils.toJsonString(r, new JacksonJsonpMapper()));
    }

    /** Posts grouped by {@code user.name.raw}. */
    private static GroupQuery<Post> byUser(java.util.function.UnaryOperator<GroupQuery.Builder<Post>> more) {
        return GroupQuery.of(
                Post.class,
                g -> more.apply(g.index("posts").query(RELATIONSHIPS).field("user.name.raw")));
    }

    private static JoinQuery<User, Post> query(java.util.function.UnaryOperator<JoinQuery.Builder<User, Post>> more) {
        return more.apply(JoinQuery.builder(User.class, Post.class)
                        .parents("users", JOHN)
                        .children("posts", "user_id")
                        .childQuery(RELATIONSHIPS))
                .build();
    }

    @Test
    void shouldFilterChildrenByOneTermsQueryWithoutScoringIt() throws Exception {
        SearchRequest r =
                Requests.childBatch(query(b -> b), ChildSide.direct("posts", 0), List.of("u1", "u2", "u3"), 20);
        assertThat(r.index()).containsExactly("posts");
        JsonNode j = json(r);
        assertThat(j.at("/query/bool/must/0/match/title/query").asText()).isEqualTo("relationships");
        assertThat(j.at("/query/bool/filter/0/terms/user_id")).hasSize(3);
        assertThat(j.at("/query/bool/filter/0/terms/user_id/0").asText()).isEqualTo("u1");
        assertThat(j.at("/size").asInt()).isEqualTo(20);
        assertThat(j.at("/sort/0/_score/order").asText()).isEqualTo("desc");
        // Scores only where the sort needs them: a field sort can then skip children that cannot make the page.
        assertThat(j.has("track_scores")).isFalse();
        assertThat(j.at("/docvalue_fields/0/field").asText()).isEqualTo("user_id");
    }

    @Test
    void shouldProbeChildrenInTheirOwnOrderOnOneSetOfShardCopies() throws Exception {
        SearchRequest r =
                Requests.childProbe(query(b -> b), ChildSide.direct("posts", 0), List.of(), 100, 300, "esrel-join-x");
        assertThat(r.index()).containsExactly("posts");
        assertThat(r.preference()).isEqualTo("esrel-join-x");
        JsonNode j = json(r);
        assertThat(j.at("/query/match/title/query").asText()).isEqualTo("relationships");
        assertThat(j.at("/from").asInt()).isEqualTo(100);
        assertThat(j.at("/size").asInt()).isEqualTo(300);
        assertThat(j.at("/track_total_hits").asBoolean()).isFalse();
        assertThat(j.at("/docvalue_fields/0/field").asText()).isEqualTo("user_id");

        JsonNode check = json(Requests.parentsByKey(query(b -> b), List.of("u1", "u2"), true));
        assertThat(check.at("/query/bool/filter")).hasSize(2);
        assertThat(check.at("/query/bool/filter/1/ids/values")).hasSize(2);
        assertThat(check.at("/size").asInt()).isEqualTo(2);
    }

    @Test
    void shouldKeepTheCallersChildSort() throws Exception {
        SearchRequest r = Requests.childBatch(
                query(b -> b.childSort(
                        SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc))))),
                ChildSide.direct("posts", 0),
                List.of("u1"),
                5);
        assertThat(json(r).at("/sort/0/date/order").asText()).isEqualTo("desc");
    }

    @Test
    void shouldReadLaterPagesOfChildrenFromAPointInTimeAfterTheLastChildInATotalOrder() throws Exception {
        JoinQuery<User, Post> q = query(b ->
                b.childSort(SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc)))));
        ChildSide side =
                ChildSide.pit("posts", "pit-id", KEEP, List.of(FieldValue.of(1700000000000L), FieldValue.of(42L)), 0);
        SearchRequest batch = Requests.childBatch(q, side, List.of("u1"), 21);
        assertThat(batch.index()).isEmpty();
        JsonNode j = json(batch);
        assertThat(j.at("/pit/id").asText()).isEqualTo("pit-id");
        assertThat(j.at("/sort/0/date/order").asText()).isEqualTo("desc");
        assertThat(j.at("/sort/1/_shard_doc/order").asText()).isEqualTo("asc");
        assertThat(j.at("/search_after")).hasSize(2);
        assertThat(j.at("/from").isMissingNode()).isTrue();

        SearchRequest probe =
                Requests.childProbe(q, side, List.of(FieldValue.of(5L), FieldValue.of(9L)), 300, 100, "pref");
        JsonNode p = json(probe);
        assertThat(probe.preference())
                .as("a point in time fixes the shard copies")
                .isNull();
        assertThat(p.at("/search_after/1").asLong()).isEqualTo(9);
        assertThat(p.at("/from").isMissingNode())
                .as("raw pages continue after the last child read")
                .isTrue();

        // The first page of a point in time, after a page read directly: no search_after yet.
        JsonNode first =
                json(Requests.childBatch(q, ChildSide.pit("posts", "pit-id", KEEP, List.of(), 20), List.of("u1"), 41));
        assertThat(first.at("/search_after").isMissingNode()).isTrue();
    }

    @Test
    void shouldReadTheFirstPageOfParentKeysInIndexOrderCountingJustPastTheCap() throws Exception {
        SearchRequest r = Requests.parentKeys(query(b -> b), null, KEEP, List.of(), 10_000, 10_001);
        assertThat(r.index()).containsExactly("users");
        JsonNode j = json(r);
        assertThat(j.at("/sort/0/_doc").isMissingNode()).isFalse();
        assertThat(j.at("/track_total_hits").asInt()).isEqualTo(10_001);
        assertThat(j.at("/size").asInt()).isEqualTo(10_000);
        assertThat(j.at("/query/match/name/query").asText()).isEqualTo("John");
        assertThat(j.at("/_source").isMissingNode()).isTrue();
        assertThat(j.at("/docvalue_fields").isMissingNode()).isTrue();
        assertThat(j.at("/stored_fields").isMissingNode()).isTrue();
    }

    @Test
    void shouldReadFurtherParentKeyPagesFromAPointInTime() throws Exception {
        SearchRequest r = Requests.parentKeys(
                query(b -> b.parentKey("handle").parentFetch(JoinQuery.ParentFetch.LAZY)),
                "pit-id",
                KEEP,
                List.of(FieldValue.of(42L)),
                500,
                1001);
        assertThat(r.index()).isEmpty();
        JsonNode j = json(r);
        assertThat(j.at("/pit/id").asText()).isEqualTo("pit-id");
        assertThat(j.at("/pit/keep_alive").asText()).isEqualTo("60s");
        assertThat(j.at("/sort/0/_shard_doc").isMissingNode()).isFalse();
        assertThat(j.at("/search_after/0").asLong()).isEqualTo(42);
        assertThat(j.at("/_source").asBoolean(true)).isFalse();
        assertThat(j.at("/stored_fields").toString()).contains("_none_");
        assertThat(j.at("/docvalue_fields/0/field").asText()).isEqualTo("handle");
    }

    @Test
    void shouldReadParentPagesDirectlyThenFromThePointInTimeBySkippingThenBySearchAfter() throws Exception {
        JsonNode first = json(Requests.parentPage(query(b -> b), null, KEEP, List.of(), 0, 11));
        assertThat(first.at("/size").asInt()).isEqualTo(11);
        assertThat(first.at("/from").isMissingNode()).isTrue();
        assertThat(first.at("/sort/0/_score/order").asText()).isEqualTo("desc");

        JsonNode firstPit = json(Requests.parentPage(query(b -> b), "pit", KEEP, List.of(), 10, 11));
        assertThat(firstPit.at("/from").asInt()).isEqualTo(10);
        assertThat(firstPit.at("/pit/id").asText()).isEqualTo("pit");

        JsonNode later = json(
                Requests.parentPage(query(b -> b), "pit", KEEP, List.of(FieldValue.of(1.5), FieldValue.of(7L)), 0, 11));
        assertThat(later.at("/search_after").size()).isEqualTo(2);
        assertThat(later.at("/from").isMissingNode()).isTrue();
    }

    @Test
    void shouldFetchLazyParentsByIdsOrByTheirKeyField() throws Exception {
        JsonNode byId = json(Requests.parentsByKey(query(b -> b), List.of("u1", "u2"), false));
        assertThat(byId.at("/query/ids/values")).hasSize(2);
        assertThat(byId.at("/size").asInt()).isEqualTo(2);
        JsonNode byField = json(Requests.parentsByKey(query(b -> b.parentKey("handle")), List.of("jo"), false));
        assertThat(byField.at("/query/terms/handle/0").asText()).isEqualTo("jo");
        assertThat(byField.at("/docvalue_fields/0/field").asText()).isEqualTo("handle");
    }

    @Test
    void shouldCollapseOnTheGroupFieldWithInnerHitsAndLeaveOutDocumentsWithoutAValue() throws Exception {
        SearchRequest r = Requests.collapse(
                "posts",
                RELATIONSHIPS,
                "user.name.raw",
                10,
                5,
                3,
                List.of(SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc)))),
                null);
        JsonNode j = json(r);
        assertThat(j.at("/collapse/field").asText()).isEqualTo("user.name.raw");
        assertThat(j.at("/collapse/inner_hits/0/name").asText()).isEqualTo(Requests.GROUP_HITS);
        assertThat(j.at("/collapse/inner_hits/0/size").asInt()).isEqualTo(3);
        assertThat(j.at("/collapse/inner_hits/0/sort/0/date/order").asText()).isEqualTo("desc");
        assertThat(j.at("/collapse/inner_hits/0/track_scores").asBoolean()).isTrue();
        assertThat(j.at("/query/bool/filter/0/exists/field").asText()).isEqualTo("user.name.raw");
        assertThat(j.at("/from").asInt()).isEqualTo(10);
        assertThat(j.at("/size").asInt()).isEqualTo(5);
        assertThat(j.at("/_source").asBoolean(true)).isFalse();
    }

    @Test
    void shouldBuildTheSeedsTermsFormOrderedByMaxScore() throws Exception {
        JsonNode j = json(Requests.termsByScriptedMaxScore(byUser(g -> g.perGroup(5)), 10));
        assertThat(j.at("/size").asInt()).isEqualTo(0);
        assertThat(j.at("/query/bool/must/0/match/title/query").asText()).isEqualTo("relationships");
        assertThat(j.at("/query/bool/filter/0/exists/field").asText()).isEqualTo("user.name.raw");
        JsonNode users = j.at("/aggregations/" + Requests.GROUPS);
        assertThat(users.at("/terms/field").asText()).isEqualTo("user.name.raw");
        assertThat(users.at("/terms/size").asInt()).isEqualTo(10);
        assertThat(users.at("/terms/order/0/" + Requests.TOP_SCORE).asText()).isEqualTo("desc");
        assertThat(users.at("/aggregations/" + Requests.TOP_SCORE + "/max/script/source")
                        .asText())
                .isEqualTo("_score");
        assertThat(users.at("/aggregations/" + Requests.GROUP_HITS + "/top_hits/size")
                        .asInt())
                .isEqualTo(5);
    }

    @Test
    void shouldAskForEveryBucketWhenOrderingWithoutScripts() throws Exception {
        JsonNode j = json(Requests.termsAllBuckets(byUser(g -> g.perGroup(5)), 10_000));
        JsonNode users = j.at("/aggregations/" + Requests.GROUPS);
        assertThat(users.at("/terms/size").asInt()).isEqualTo(10_000);
        assertThat(users.at("/terms/order").isMissingNode()).isTrue();
        assertThat(users.at("/aggregations/" + Requests.TOP_SCORE).isMissingNode())
                .isTrue();
        assertThat(users.at("/aggregations/" + Requests.GROUP_HITS + "/top_hits/size")
                        .asInt())
                .isEqualTo(5);
    }
}
