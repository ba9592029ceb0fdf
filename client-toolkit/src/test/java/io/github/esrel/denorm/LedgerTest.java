package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LedgerTest {

    @Test
    void shouldCountEveryChildOnceAndCarryOnFromACheckpoint() {
        Ledger l = new Ledger(new JobCounts(10, 4, 3, 1, 0, 2, 1, 0, 1), 7, 2);
        l.passStarted(1);
        l.matched(1, 6); // a resumed first pass: what is left of the 10
        l.handled(Ledger.Kind.WRITTEN);
        l.handled(Ledger.Kind.UP_TO_DATE);
        l.handled(Ledger.Kind.MOVED);
        l.conflict();
        l.rejected(3);
        l.sawParent(5); // an older read arriving late changes nothing
        assertThat(l.counts()).isEqualTo(new JobCounts(10, 7, 4, 2, 1, 3, 4, 0, 2));
        assertThat(l.doneThisRun()).isEqualTo(3);
        assertThat(l.parentSeqNo()).isEqualTo(7);
    }

    @Test
    void shouldReportTheFirstFailuresAndRememberTheirIdsForTheNextPass() {
        Ledger l = new Ledger(JobCounts.NONE, -1, 2);
        l.matched(1, 5);
        for (int i = 0; i < 3; i++) {
            assertThat(l.fail("c" + i, null, 400, "mapper_parsing_exception").childId())
                    .isEqualTo("c" + i);
        }
        assertThat(l.failures()).extracting(ChildFailure::childId).containsExactly("c0", "c1");
        assertThat(l.failedSoFar()).containsExactlyInAnyOrder("c0", "c1", "c2");
        assertThat(l.failed()).isEqualTo(3);
        l.matched(2, 3); // a catch-up pass finds three more to visit
        l.skipped(2); // two of which failed before
        assertThat(l.counts().total()).isEqualTo(6);
    }

    @Test
    void shouldNeverCheckpointATotalBelowWhatIsDone() {
        Ledger l = new Ledger(JobCounts.NONE, -1, 10);
        l.handled(Ledger.Kind.WRITTEN);
        assertThat(l.counts().total()).isEqualTo(-1);
        assertThat(l.checkpointCounts().total()).isEqualTo(1);
        l.settle();
        assertThat(l.counts().total()).isEqualTo(1);
        assertThat(l.counts().fraction()).isEqualTo(1.0);
    }

    @Test
    void shouldSumTheSlicesOfAPassAndTrackEachSlice() {
        Ledger l = new Ledger(new JobCounts(10, 4, 4, 0, 0, 0, 0, 0, 1), 7, 10);
        l.passStarted(3);
        l.matched(1, 2); // each slice's first page says how many it matches
        l.handled(Ledger.Kind.WRITTEN);
        l.matched(1, 3);
        l.matched(1, 1);
        l.sliceRead(1, 3);
        l.sliceFinished(1);
        l.sliceRead(0, 1);
        assertThat(l.counts().total())
                .as("what was done before the pass and what the slices match")
                .isEqualTo(10);
        assertThat(l.slices())
                .containsExactly(
                        new Checkpoint.Slice(0, 1, false),
                        new Checkpoint.Slice(1, 3, true),
                        new Checkpoint.Slice(2, 0, false));
        l.passStarted(2);
        l.matched(2, 2);
        l.matched(2, 1);
        assertThat(l.counts().total())
                .as("a catch-up pass adds what its slices find")
                .isEqualTo(13);
        assertThat(l.slices()).hasSize(2).allMatch(s -> s.read() == 0 && !s.finished());
    }
}
