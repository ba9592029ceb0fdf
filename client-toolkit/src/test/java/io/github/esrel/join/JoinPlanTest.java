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

    @Test
    void shouldReadAboutWhatTheKnownShareSaysHoldsThePageNeverMoreThanTheBlindProbe() {
        // The benchmark's question asked again: half the users match, 20 posts wanted.
        assertThat(ChildrenFirst.firstProbe(20, 10_000, 20_000, 100)).isEqualTo(63);
        // A quarter: the blind probe is already about right.
        assertThat(ChildrenFirst.firstProbe(20, 5_000, 20_000, 100)).isEqualTo(100);
        // Every parent matches: the page and its margin.
        assertThat(ChildrenFirst.firstProbe(20, 20_000, 20_000, 100)).isEqualTo(32);
        // Counts from different moments can cross; none matched a minute ago.
        assertThat(ChildrenFirst.firstProbe(20, 30_000, 20_000, 100)).isEqualTo(32);
        assertThat(ChildrenFirst.firstProbe(20, 0, 20_000, 100)).isEqualTo(100);
    }

    @Test
    void shouldFindThePageInTheFirstReadAlmostAlwaysWhenTheShareHolds() {
        // Children whose parents match independently with the known share: the chance that the first read holds
        // fewer than the page (another round trip) stays about 1 % or below.
        for (double share : new double[] {0.3, 0.5, 0.8, 1.0}) {
            for (int window : new int[] {10, 20, 50}) {
                int n = ChildrenFirst.firstProbe(window, (long) (share * 1_000_000), 1_000_000, Integer.MAX_VALUE);
                assertThat(binomialBelow(n, share, window))
                        .as("share %s, window %d, read %d", share, window, n)
                        .isLessThan(0.015);
            }
        }
    }

    /** P(X < k) for X ~ Binomial(n, p). */
    private static double binomialBelow(int n, double p, int k) {
        if (p >= 1) {
            return n >= k ? 0 : 1;
        }
        double sum = 0;
        double logP = Math.log(p);
        double logQ = Math.log(1 - p);
        for (int i = 0; i < k && i <= n; i++) {
            sum += Math.exp(logChoose(n, i) + i * logP + (n - i) * logQ);
        }
        return sum;
    }

    private static double logChoose(int n, int k) {
        double r = 0;
        for (int i = 1; i <= k; i++) {
            r += Math.log(n - k + i) - Math.log(i);
        }
        return r;
    }
}
