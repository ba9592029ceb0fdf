package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch._types.aggregations.Aggregate;
import co.elastic.clients.elasticsearch._types.aggregations.FilterAggregate;
import co.elastic.clients.elasticsearch._types.aggregations.SumAggregate;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PageParentsTest {

    private static Hit<JsonData> hit(String index, String id, Long seqNo) {
        return Hit.of(h -> h.index(index)
                .id(id)
                .seqNo(seqNo)
                .primaryTerm(seqNo == null ? null : 1L)
                .source(JsonData.of(Map.of("name", id))));
    }

    @SafeVarargs // reads the array, and nothing else
    private static Map<String, Hit<JsonData>> read(Hit<JsonData>... hits) {
        Map<String, Hit<JsonData>> out = new HashMap<>();
        for (Hit<JsonData> h : hits) {
            out.put(h.id(), h);
        }
        return out;
    }

    /** What the check's aggregation answers: how many of the page's parents it found, and their _seq_no summed. */
    private static Aggregate found(long docs, double seqNoSum) {
        return FilterAggregate.of(f -> f.docCount(docs)
                        .aggregations(
                                Requests.SEQ_NO_SUM,
                                SumAggregate.of(s -> s.value(seqNoSum))._toAggregate()))
                ._toAggregate();
    }

    @Test
    void shouldBeCheckableWhenEveryParentWasReadWithItsSeqNo() {
        PageParents page = PageParents.of(
                List.of("u1", "u2"),
                read(hit("users", "u1", 7L), hit("users", "u2", 40L), hit("users", "u3", 2L)),
                false);
        assertThat(page.checkable()).isTrue();
        assertThat(page.seqNoSum()).isEqualTo(47);
        assertThat(page.hits()).containsOnlyKeys("u1", "u2");
        assertThat(page.indices()).containsExactly("users");

        assertThat(page.unchanged(found(2, 47))).isTrue();
        // A parent written since: a higher _seq_no, so a higher sum.
        assertThat(page.unchanged(found(2, 48))).isFalse();
        // A parent gone (or moved to another index): fewer found.
        assertThat(page.unchanged(found(1, 40))).isFalse();
        assertThat(page.unchanged(null)).isFalse();
    }

    @Test
    void shouldKeepOnlyTheKeysWhenAParentWasNotReadWithItsSeqNo() {
        assertThat(PageParents.of(List.of("u1", "u2"), read(hit("users", "u1", 7L)), false)
                        .checkable())
                .isFalse();
        PageParents noSeqNo =
                PageParents.of(List.of("u1", "u2"), read(hit("users", "u1", 7L), hit("users", "u2", null)), false);
        assertThat(noSeqNo.checkable()).isFalse();
        assertThat(noSeqNo.keys()).containsExactly("u1", "u2");
        // Parents that changed when last checked are read beside the check, not checked.
        assertThat(PageParents.of(List.of("u1"), read(hit("users", "u1", 7L)), true)
                        .checkable())
                .isFalse();
    }

    @Test
    void shouldNotHoldTheSourcesOfALargePage() {
        List<String> keys = IntStream.range(0, PageParents.MAX_PARENTS + 1)
                .mapToObj(i -> "u" + i)
                .toList();
        AtomicLong seqNo = new AtomicLong();
        Map<String, Hit<JsonData>> hits =
                keys.stream().collect(Collectors.toMap(k -> k, k -> hit("users", k, seqNo.incrementAndGet())));
        PageParents page = PageParents.of(keys, hits, false);
        assertThat(page.checkable()).isFalse();
        assertThat(page.keys()).hasSize(PageParents.MAX_PARENTS + 1);
        assertThat(PageParents.of(keys.subList(0, PageParents.MAX_PARENTS), hits, false)
                        .checkable())
                .isTrue();
    }

    @Test
    void shouldTellParentsReadAgainFromThoseReadLastTime() {
        PageParents page =
                PageParents.of(List.of("u1", "u2"), read(hit("users", "u1", 7L), hit("users", "u2", 40L)), false);
        assertThat(page.sameAs(read(hit("users", "u1", 7L), hit("users", "u2", 40L))))
                .isTrue();
        assertThat(page.sameAs(read(hit("users", "u1", 7L), hit("users", "u2", 41L))))
                .isFalse();
        assertThat(page.sameAs(read(hit("users", "u1", 7L), hit("users-2", "u2", 40L))))
                .isFalse();
        assertThat(page.sameAs(read(hit("users", "u1", 7L)))).isFalse();
        assertThat(PageParents.NONE.sameAs(read(hit("users", "u1", 7L)))).isFalse();
    }

    @Test
    void shouldForgetThePageAfterAMinute() {
        AtomicLong now = new AtomicLong();
        RecentKeys recent = new RecentKeys(now::get);
        PageParents page = PageParents.of(List.of("u1"), read(hit("users", "u1", 7L)), false);
        recent.putPage("q", page);
        now.set(RecentKeys.MAX_AGE_NANOS);
        assertThat(recent.page("q")).isSameAs(page);
        now.set(RecentKeys.MAX_AGE_NANOS + 1);
        assertThat(recent.page("q")).isSameAs(PageParents.NONE);
        recent.putPage("q", page);
        recent.putPage("q", null);
        assertThat(recent.page("q")).isSameAs(PageParents.NONE);
    }
}
