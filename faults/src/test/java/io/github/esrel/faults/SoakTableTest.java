package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import org.junit.jupiter.api.Test;

class SoakTableTest {

    @Test
    void shouldTakeTheMiddleValueOrTheMeanOfTheTwoMiddleOnes() {
        assertThat(SoakTable.median(List.of(7L))).isEqualTo(7);
        assertThat(SoakTable.median(List.of(30L, 10L, 20L))).isEqualTo(20);
        assertThat(SoakTable.median(List.of(40L, 10L, 20L, 31L))).isEqualTo(25);
        assertThatIllegalArgumentException().isThrownBy(() -> SoakTable.median(List.of()));
    }

    @Test
    void shouldSumInjectionsOfAFaultPerCapabilityAndTotalTheRows() {
        SoakTable t = new SoakTable();
        t.injected();
        t.add("kill -9", "locks", 100, 0, 50);
        t.add("kill -9", "occ", 10, 0, 900);
        t.injected();
        t.add("SIGSTOP", "locks", 200, 1, -1);
        t.add("SIGSTOP", "occ", 20, 0, 100);
        t.injected();
        t.add("kill -9", "locks", 300, 0, 70);
        t.add("kill -9", "occ", 30, 0, 1100);

        String table = t.markdown(5000, 1);

        assertThat(t.violations()).isEqualTo(1);
        assertThat(table.lines().toList())
                .containsExactly(
                        "| fault | capability | injections | operations during | violations | recovery ms median"
                                + " | recovery ms max |",
                        "|---|---|---:|---:|---:|---:|---:|",
                        "| kill -9 | locks | 2 | 400 | 0 | 60 | 70 |",
                        "| kill -9 | occ | 2 | 40 | 0 | 1000 | 1100 |",
                        "| SIGSTOP | locks | 1 | 200 | 1 | - | - |",
                        "| SIGSTOP | occ | 1 | 20 | 0 | 100 | 100 |",
                        "| **total** |  | 3 | 660 | 1 | 100 | 1100 |",
                        "| **whole soak** | all, checked at the end | 3 | 5000 | 1 | - | - |");
    }
}
