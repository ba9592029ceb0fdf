package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The arithmetic behind {@link JoinQuery.Plan#AUTO} and the children-first page sizes. */
class JoinPlanTest {

    @Test
    void shouldExpectWindowOverShareChildrenReads() {
        assertThat(ChildrenFirst.expectedReads(20, 10_000, 20_000)).isEqualTo(40.0);
        assertThat(ChildrenFirst.expectedReads(20, 1, 5_000)).isEqualTo(100_000.0);
        // Counts from different moments can cross: the share never exceeds 1.
        assertThat(ChildrenFirst.expectedReads(20, 30, 20)).isEqualTo(20.0);
        assertThat(ChildrenFirst.expectedReads(20, 0, 0)).isEqualTo(20.0);
        assertThat(ChildrenFirst.expectedReads(20, 0, 100)).isGreaterThan(1e9);
    }

    @Test
    void shouldPreferChildrenFirstOnlyWhenFewerReadsThanKeysAndWithinBudget() {
        // The benchmark's question: half the users match, 20 posts wanted.
        assertThat(ChildrenFirst.childrenFirstCheaper(40, 10_000, 5_000)).isTrue();
        // Selective parents: 1,500 keys against 13,000 expected reads.
        assertThat(ChildrenFirst.childrenFirstCheaper(13_000, 1_500, 5_000)).isFalse();
        // Cheaper than the keys but over the reading budget.
        assertThat(ChildrenFirst.childrenFirstCheaper(6_000, 50_000, 5_000)).isFalse();
        assertThat(ChildrenFirst.childrenFirstCheaper(5_000, 5_000, 5_000)).isTrue();
    }

    @Test
    void shouldSizeTheNextPageFromTheShareFoundSoFar() {
        // 10 of 100 read matched, 10 more wanted: about 100 more, plus half as margin.
        assertThat(ChildrenFirst.nextPage(20, 10, 100, 50)).isEqualTo(152);
        // Nothing found yet: assume one match in what was read.
        assertThat(ChildrenFirst.nextPage(20, 0, 100, 100)).isEqualTo(3_030);
        // Never below the first page.
        assertThat(ChildrenFirst.nextPage(20, 19, 40, 100)).isEqualTo(100);
    }
}
