package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import io.github.esrel.internal.ClientApi;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pages of several terms batches merge in the order one search would have returned. */
class JoinSortMergeTest {

    private static List<FieldValue> v(Object... values) {
        List<FieldValue> out = new ArrayList<>();
        for (Object o : values) {
            // Primitive arguments: FieldValue.of(Object) would win over of(long) for a boxed Long.
            out.add(
                    o == null
                            ? FieldValue.NULL
                            : o instanceof Long l
                                    ? FieldValue.of(l.longValue())
                                    : o instanceof Integer i
                                            ? FieldValue.of(i.longValue())
                                            : o instanceof Double d
                                                    ? FieldValue.of(d.doubleValue())
                                                    : o instanceof Boolean b
                                                            ? FieldValue.of(b.booleanValue())
                                                            : FieldValue.of(o.toString()));
        }
        return out;
    }

    private static List<String> render(List<List<FieldValue>> hits) {
        return hits.stream()
                .map(h -> h.stream().map(f -> String.valueOf(f._get())).toList().toString())
                .toList();
    }

    @Test
    void shouldOrderByScoreBestFirstByDefault() {
        Comparator<List<FieldValue>> c = SortValues.comparator(List.of());
        List<List<FieldValue>> hits = new ArrayList<>(List.of(v(1.5), v(3.25), v(0.5), v(3.0)));
        hits.sort(c);
        assertThat(render(hits)).containsExactly("[3.25]", "[3.0]", "[1.5]", "[0.5]");
    }

    @Test
    void shouldFollowFieldOrdersAndBreakTiesWithLaterSorts() {
        Comparator<List<FieldValue>> c = SortValues.comparator(List.of(
                SortOptions.of(s -> s.field(f -> f.field("popularity").order(SortOrder.Desc))),
                SortOptions.of(s -> s.field(f -> f.field("title")))));
        List<List<FieldValue>> hits = new ArrayList<>(List.of(v(5, "b"), v(9, "z"), v(5, "a"), v(7, "m")));
        hits.sort(c);
        assertThat(render(hits)).containsExactly("[9, z]", "[7, m]", "[5, a]", "[5, b]");
    }

    @Test
    void shouldPutMissingValuesLastInBothDirections() {
        for (SortOrder order : SortOrder.values()) {
            Comparator<List<FieldValue>> c = SortValues.comparator(
                    List.of(SortOptions.of(s -> s.field(f -> f.field("name").order(order)))));
            List<List<FieldValue>> hits = new ArrayList<>(List.of(v((Object) null), v("b"), v("a")));
            hits.sort(c);
            assertThat(render(hits).get(2)).isEqualTo("[null]");
        }
    }

    @Test
    void shouldCompareLongsExactlyAndMixedNumbersByValue() {
        Comparator<List<FieldValue>> asc =
                SortValues.comparator(List.of(SortOptions.of(s -> s.field(f -> f.field("n")))));
        assertThat(asc.compare(v(9_007_199_254_740_993L), v(9_007_199_254_740_992L)))
                .isPositive();
        assertThat(asc.compare(v(2), v(1.5))).isPositive();
        assertThat(asc.compare(v(2), v(2.0))).isZero();
    }

    @Test
    void shouldCompareStringsByCodePointAsLuceneComparesUtf8Bytes() {
        // U+FF5E (one UTF-16 unit, 3 UTF-8 bytes) sorts before U+1F600 (a surrogate pair, 4 bytes) in
        // UTF-8 byte order; String.compareTo says the opposite (0xD83D < 0xFF5E).
        String fullwidthTilde = "\uFF5E";
        String emoji = new String(Character.toChars(0x1F600));
        assertThat(fullwidthTilde.compareTo(emoji)).isPositive();
        assertThat(SortValues.byCodePoint(fullwidthTilde, emoji)).isNegative();
        assertThat(SortValues.byCodePoint("ab", "abc")).isNegative();
        assertThat(SortValues.byCodePoint("abc", "abc")).isZero();
    }

    @Test
    void shouldTreatScoreAsAFieldSortDescendingAndDocAscending() {
        assertThat(SortValues.descending(SortOptions.of(s -> s.field(f -> f.field("_score")))))
                .isTrue();
        assertThat(SortValues.descending(SortOptions.of(s -> s.score(sc -> sc.order(SortOrder.Asc)))))
                .isFalse();
        assertThat(SortValues.descending(SortOptions.of(s -> s.doc(d -> d)))).isFalse();
    }

    @Test
    void shouldRefuseSortsItCannotReproduce() {
        SortOptions script = SortOptions.of(s ->
                s.script(sc -> sc.type(co.elastic.clients.elasticsearch._types.ScriptSortType.Number)
                        .script(ClientApi.painless("doc['n'].value * 2", Map.of()))));
        assertThatThrownBy(() -> SortValues.comparator(List.of(script)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max_terms_count");
    }

    @Test
    void shouldOrderGroupsByBestScoreThenKeyLikeTheTermsAggregation() {
        List<Group<String>> groups = new ArrayList<>(List.of(
                new Group<>("b", 1.0, 1, List.of()),
                new Group<>("c", 2.0, 1, List.of()),
                new Group<>("a", 1.0, 1, List.of())));
        groups.sort(Grouping.BEST_FIRST);
        assertThat(groups).extracting(Group::key).containsExactly("c", "a", "b");
    }
}
