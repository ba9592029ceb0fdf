package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch._types.FieldValue;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The parts a join result is assembled from, and where a page's cursor points. */
class JoinResultBuilderTest {

    private static Doc<String> doc(String index, String id) {
        return new Doc<>(index, id, null, List.of(), id);
    }

    @Test
    void shouldGroupPairsUnderTheirParentsInPairOrderWhenNoGroupsAreGiven() {
        Doc<String> u1 = doc("users", "u1");
        Doc<String> u2 = doc("users", "u2");
        List<Pair<String, String>> pairs = List.of(
                new Pair<>(u1, doc("posts", "p1")),
                new Pair<>(u2, doc("posts", "p2")),
                new Pair<>(u1, doc("posts", "p3")));
        JoinResult<String, String> r = JoinResult.<String, String>builder(
                        JoinResult.Status.COMPLETE, JoinQuery.Plan.CHILDREN_FIRST)
                .pairs(pairs)
                .cost(new Trips(), System.nanoTime())
                .build();
        assertThat(r.parents()).extracting(p -> p.parent().id()).containsExactly("u1", "u2");
        assertThat(r.parents().get(0).children()).extracting(Doc::id).containsExactly("p1", "p3");
        assertThat(r.parents().get(0).totalChildren()).isEqualTo(-1);
        assertThat(r.children()).containsExactly("p1", "p2", "p3");
    }

    @Test
    void shouldReportEachPartAsSetAndChildrenMatchedAsUnknownUntilSet() {
        Trips trips = new Trips();
        trips.add("search [users] parent keys");
        JoinResult.Builder<String, String> b = JoinResult.<String, String>builder(
                        JoinResult.Status.CAP_EXCEEDED, JoinQuery.Plan.KEYS_FIRST)
                .parents(List.of())
                .parentSide(12_000, false, 10_001)
                .maxTermsCount(65_536)
                .maxParents(10_000)
                .advice("denormalize")
                .cost(trips, System.nanoTime());
        trips.add("close point in time [posts]");
        JoinResult<String, String> r = b.build();
        assertThat(r.status()).isEqualTo(JoinResult.Status.CAP_EXCEEDED);
        assertThat(r.plan()).isEqualTo(JoinQuery.Plan.KEYS_FIRST);
        assertThat(r.parentsMatched()).isEqualTo(12_000);
        assertThat(r.parentsMatchedExact()).isFalse();
        assertThat(r.parentsRead()).isEqualTo(10_001);
        assertThat(r.childrenMatched()).isEqualTo(-1);
        assertThat(r.childrenMatchedExact()).isFalse();
        assertThat(r.keysShipped()).isZero();
        assertThat(r.termsBatches()).isZero();
        assertThat(r.maxTermsCount()).isEqualTo(65_536);
        assertThat(r.maxParents()).isEqualTo(10_000);
        assertThat(r.advice()).isEqualTo("denormalize");
        assertThat(r.next()).isEmpty();
        assertThat(r.requests())
                .as("requests after cost() are not the result's")
                .containsExactly("search [users] parent keys");
        assertThat(r.took().isNegative()).isFalse();
    }

    @Test
    void shouldContinueADirectPageAtItsWindowAndAPointInTimePageAfterItsLastChild() {
        ChildSide direct = ChildSide.direct("posts", 20);
        assertThat(direct.next(40, List.of(FieldValue.of(3L)))).isEqualTo(JoinCursor.children(null, List.of(), 40));

        ChildSide pit = ChildSide.pit("posts", "pit-1", null, List.of(), 0);
        assertThat(pit.next(20, List.of(FieldValue.of(3L))))
                .isEqualTo(JoinCursor.children("pit-1", List.of(FieldValue.of(3L)), 0));
        assertThat(pit.next(20, List.of())).as("no position to continue from").isNull();
    }

    @Test
    void shouldCollectEachParentKeyOnceAndCountEveryParentRead() {
        MatchingParents<String> parents = new MatchingParents<>();
        parents.add(new KeyPage<>(
                Arrays.asList("u1", null, "u2"),
                List.of(doc("users", "a"), doc("users", "b"), doc("users", "c")),
                List.of(),
                3,
                true,
                null));
        parents.add(new KeyPage<>(List.of("u2", "u3"), null, List.of(), 2, true, null));
        assertThat(parents.keys).containsExactly("u1", "u2", "u3");
        assertThat(parents.docs).containsOnlyKeys("u1", "u2");
        assertThat(parents.docs.get("u2").id()).isEqualTo("c");
        assertThat(parents.read).isEqualTo(5);
    }
}
