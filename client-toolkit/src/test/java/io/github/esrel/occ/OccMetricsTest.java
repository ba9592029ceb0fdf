package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OccMetricsTest {

    private static Outcome<Object> outcome(Outcome.Status status, int attempts, int conflicts) {
        return Outcome.builder("i", "1", null, status)
                .version(1, 1, 1)
                .attempts(attempts, conflicts)
                .build();
    }

    @Test
    void shouldCountOutcomesConflictsAndAttempts() {
        OccMetrics metrics = new OccMetrics();
        for (int i = 0; i < 90; i++) {
            metrics.onOutcome(outcome(Outcome.Status.UPDATED, 1, 0));
        }
        for (int i = 0; i < 9; i++) {
            metrics.onConflict("i", "1", 1);
            metrics.onOutcome(outcome(Outcome.Status.UPDATED, 2, 1));
        }
        metrics.onOutcome(outcome(Outcome.Status.CONFLICT, 10, 10));
        for (int i = 0; i < 10; i++) {
            metrics.onConflict("i", "1", i + 1);
        }
        OccMetrics.Snapshot s = metrics.snapshot();
        assertThat(s.operations()).isEqualTo(100);
        assertThat(s.written()).isEqualTo(99);
        assertThat(s.gaveUp()).isEqualTo(1);
        assertThat(s.conflicts()).isEqualTo(19);
        assertThat(s.totalAttempts()).isEqualTo(90 + 18 + 10);
        assertThat(s.meanAttempts()).isEqualTo(1.18);
        assertThat(s.attemptsPercentile(0.5)).isEqualTo(1);
        assertThat(s.attemptsPercentile(0.95)).isEqualTo(2);
        assertThat(s.attemptsPercentile(1.0)).isEqualTo(10);
        assertThat(s.maxAttempts()).isEqualTo(10);
        assertThat(s.attemptsHistogram()[1]).isEqualTo(90);
        assertThat(s.toString()).contains("operations=100 written=99").contains("histogram={1:90 2:9 10:1}");
    }

    @Test
    void shouldPutVeryLongOperationsInTheLastBucketAndReset() {
        OccMetrics metrics = new OccMetrics();
        metrics.onOutcome(outcome(Outcome.Status.UPDATED, 500, 499));
        assertThat(metrics.snapshot().maxAttempts()).isEqualTo(OccMetrics.HISTOGRAM_BUCKETS);
        assertThat(metrics.snapshot().toString()).contains("64+:1");
        metrics.reset();
        assertThat(metrics.snapshot().operations()).isZero();
        assertThat(metrics.snapshot().attemptsPercentile(0.99)).isZero();
        assertThatThrownBy(() -> metrics.snapshot().attemptsPercentile(0))
                .hasMessage("fraction must be in (0, 1], got 0.0");
    }
}
