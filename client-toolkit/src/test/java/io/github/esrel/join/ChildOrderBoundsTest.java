package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortMode;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.json.JsonpUtils;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which child sorts {@link ChildOrderBounds} bounds, and how long it keeps a bound. */
class ChildOrderBoundsTest {

    private static final SortOptions NEWEST =
            SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Desc)));
    private static final SortOptions OLDEST =
            SortOptions.of(s -> s.field(f -> f.field("date").order(SortOrder.Asc)));

    @Test
    void shouldBoundOnlyAPlainFieldSortWithItsDefaultModeAndMissingLast() {
        assertThat(ChildOrderBounds.boundedField(List.of(NEWEST))).isEqualTo("date");
        assertThat(ChildOrderBounds.boundedField(List.of(OLDEST, SortValues.BY_SCORE.get(0))))
                .isEqualTo("date");
        assertThat(ChildOrderBounds.boundedField(List.of(sort(f -> f.mode(SortMode.Max)))))
                .isEqualTo("date");
        assertThat(ChildOrderBounds.boundedField(List.of(sort(f -> f.missing(FieldValue.of("_last"))))))
                .isEqualTo("date");

        assertThat(ChildOrderBounds.boundedField(null)).isNull();
        assertThat(ChildOrderBounds.boundedField(SortValues.BY_SCORE)).isNull();
        assertThat(ChildOrderBounds.boundedField(List.of(SortValues.BY_SCORE.get(0), NEWEST)))
                .isNull();
        assertThat(ChildOrderBounds.boundedField(List.of(SortOptions.of(s -> s.field(f -> f.field("_score"))))))
                .isNull();
        assertThat(ChildOrderBounds.boundedField(List.of(SortOptions.of(s -> s.doc(d -> d)))))
                .isNull();
        // A mode other than the order's default, or missing values first, sort children the filter would drop.
        assertThat(ChildOrderBounds.boundedField(List.of(sort(f -> f.mode(SortMode.Min)))))
                .isNull();
        assertThat(ChildOrderBounds.boundedField(List.of(sort(f -> f.mode(SortMode.Avg)))))
                .isNull();
        assertThat(ChildOrderBounds.boundedField(List.of(sort(f -> f.missing(FieldValue.of("_first"))))))
                .isNull();
        assertThat(ChildOrderBounds.boundedField(List.of(sort(f -> f.missing(FieldValue.of(0))))))
                .isNull();
        assertThat(ChildOrderBounds.boundedField(List.of(sort(f -> f.nested(n -> n.path("comments"))))))
                .isNull();
        assertThat(ChildOrderBounds.boundedField(List.of(sort(f -> f.format("yyyy")))))
                .isNull();
    }

    @Test
    void shouldKeepABoundForAMinuteForReadsOfAtMostItsChildren() {
        AtomicLong now = new AtomicLong();
        ChildOrderBounds bounds = new ChildOrderBounds(now::get);
        bounds.put("posts q", List.of(NEWEST), List.of(FieldValue.of(1_039_000L)), 63);

        ChildOrderBounds.Bound b = bounds.get("posts q", 63);
        assertThat(b).isNotNull();
        assertThat(b.field()).isEqualTo("date");
        assertThat(b.descending()).isTrue();
        assertThat(b.value()).isEqualTo(1_039_000L);
        assertThat(bounds.get("posts q", 20)).isNotNull();
        // It says nothing of children past its own.
        assertThat(bounds.get("posts q", 64)).isNull();
        assertThat(bounds.get("posts other", 20)).isNull();

        now.set(ChildOrderBounds.MAX_AGE_NANOS + 1);
        assertThat(bounds.get("posts q", 20)).isNull();
    }

    @Test
    void shouldNotBoundOnFractionalOrFormattedValuesAndForgetOnRequest() {
        ChildOrderBounds bounds = new ChildOrderBounds(() -> 0);
        bounds.put("a", List.of(NEWEST), List.of(FieldValue.of(1.5)), 10);
        bounds.put("b", List.of(NEWEST), List.of(FieldValue.of("2026-12-05")), 10);
        bounds.put("c", List.of(NEWEST), List.of(), 10);
        bounds.put("d", SortValues.BY_SCORE, List.of(FieldValue.of(3L)), 10);
        assertThat(bounds.get("a", 1)).isNull();
        assertThat(bounds.get("b", 1)).isNull();
        assertThat(bounds.get("c", 1)).isNull();
        assertThat(bounds.get("d", 1)).isNull();

        bounds.put("e", List.of(OLDEST), List.of(FieldValue.of(7L)), 10);
        assertThat(bounds.get("e", 10).descending()).isFalse();
    }

    @Test
    void shouldKeepBoundingOffForAMinuteAfterABoundMadeAReadShort() {
        AtomicLong now = new AtomicLong();
        ChildOrderBounds bounds = new ChildOrderBounds(now::get);
        bounds.put("nanos", List.of(NEWEST), List.of(FieldValue.of(1_733_356_800_000_000_000L)), 63);
        assertThat(bounds.get("nanos", 63)).isNotNull();
        // (A date_nanos field: its sort values are nanoseconds, which the epoch_millis filter reads as milliseconds.)
        bounds.turnOff("nanos");
        assertThat(bounds.get("nanos", 63)).isNull();
        // The unbounded reads of the minute do not turn it on again, so none of them pays a short read.
        now.addAndGet(1_000_000_000L);
        bounds.put("nanos", List.of(NEWEST), List.of(FieldValue.of(1_733_356_800_000_000_000L)), 63);
        assertThat(bounds.get("nanos", 63)).isNull();
        // After it, a read learns a bound again.
        now.addAndGet(ChildOrderBounds.MAX_AGE_NANOS);
        bounds.put("nanos", List.of(NEWEST), List.of(FieldValue.of(1_733_356_800_000_000_000L)), 63);
        assertThat(bounds.get("nanos", 63)).isNotNull();
    }

    @Test
    void shouldFilterTheChildQueryWithoutScoringTheBound() {
        JacksonJsonpMapper mapper = new JacksonJsonpMapper();
        Query mentions = Query.of(q -> q.match(m -> m.field("title").query("elasticsearch")));
        String newest = JsonpUtils.toJsonString(
                new ChildOrderBounds.Bound("date", true, 1_039_000L, 63, 0).filter(mentions), mapper);
        assertThat(newest)
                .isEqualTo(
                        "{\"bool\":{\"filter\":[{\"range\":{\"date\":{\"gte\":1039000,\"format\":\"epoch_millis\"}}}],"
                                + "\"must\":[{\"match\":{\"title\":{\"query\":\"elasticsearch\"}}}]}}");
        String oldest =
                JsonpUtils.toJsonString(new ChildOrderBounds.Bound("date", false, 5L, 63, 0).filter(null), mapper);
        assertThat(oldest)
                .isEqualTo("{\"bool\":{\"filter\":[{\"range\":{\"date\":{\"lte\":5,\"format\":\"epoch_millis\"}}}]}}");
    }

    private static SortOptions sort(
            java.util.function.Function<
                            co.elastic.clients.elasticsearch._types.FieldSort.Builder,
                            co.elastic.clients.elasticsearch._types.FieldSort.Builder>
                    f) {
        return SortOptions.of(s -> s.field(x -> f.apply(x.field("date").order(SortOrder.Desc))));
    }
}
