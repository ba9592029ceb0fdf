package io.github.esrel.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.denorm.JobCounts;
import io.github.esrel.denorm.JobState;
import io.github.esrel.denorm.Progress;
import io.github.esrel.denorm.PropagationListener;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.TreeLockException;
import io.github.esrel.lock.TreeLockListener;
import io.github.esrel.view.Intent;
import io.github.esrel.view.ViewListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The lock, propagation and view meters, fed the events their listeners get. */
class OtherMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final TestObservationRegistry observations = TestObservationRegistry.create();
    private final EsrelMicrometer micrometer = EsrelMicrometer.builder()
            .registry(registry)
            .observations(observations)
            .build();
    private final LockRequest exclusive = LockRequest.of(b -> b.path("/a").mode(LockMode.EXCLUSIVE));

    @Test
    void shouldTimeBusyAndDeniedAcquisitionsAndObserveEach() {
        TreeLockListener locks = micrometer.lockListener();
        locks.onAcquireStarted("fs", exclusive);
        locks.onBusy("fs", exclusive, List.of(), Duration.ofMillis(40));
        TreeLockException refused = new TreeLockException("no such index", 404, null, List.of());
        locks.onAcquireStarted("fs", exclusive);
        locks.onAcquireFailed("fs", exclusive, refused, Duration.ofMillis(1));

        var busy = registry.get(LockMeters.ACQUIRE)
                .tags("index", "fs", "mode", "exclusive", "outcome", "busy")
                .timer();
        assertThat(busy.count()).isEqualTo(1);
        assertThat(busy.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(40);
        assertThat(registry.get(LockMeters.ACQUIRE)
                        .tags("outcome", "denied")
                        .timer()
                        .count())
                .isEqualTo(1);
        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(LockMeters.OBSERVATION, 2)
                .hasAnObservationWithAKeyValue("outcome", "busy")
                .hasAnObservationWithAKeyValue("outcome", "denied");
        assertThat(observations.getCurrentObservation()).isNull();
    }

    @Test
    void shouldCountPropagatedDocumentsFromProgressDeltasUntilTheJobEnds() {
        PropagationListener p = micrometer.propagationListener();
        p.onStart("j1", "p1");
        p.onProgress(progress("j1", new JobCounts(10, 4, 3, 1, 0, 1, 0, 0, 1)));
        p.onProgress(progress("j1", new JobCounts(10, 10, 8, 1, 0, 2, 0, 1, 1)));
        assertThat(documents("done")).isEqualTo(10);
        assertThat(documents("written")).isEqualTo(8);
        assertThat(documents("conflicting")).isEqualTo(2);
        assertThat(documents("failed")).isEqualTo(1);
    }

    @Test
    void shouldShowTheAgeOfTheOldestRunningCheckpoint() {
        Instant now = Instant.parse("2026-12-02T10:00:00Z");
        PropagationMeters p =
                new PropagationMeters(registry, observations, List.of(), Clock.fixed(now, ZoneOffset.UTC));
        p.onCheckpoint("j1", JobState.RUNNING, now.minusSeconds(30));
        p.onCheckpoint("j2", JobState.RUNNING, now.minusSeconds(5));
        assertThat(registry.get(PropagationMeters.CHECKPOINT_AGE).timeGauge().value(TimeUnit.SECONDS))
                .isEqualTo(30);
        p.onCheckpoint("j1", JobState.COMPLETED, now);
        assertThat(registry.get(PropagationMeters.CHECKPOINT_AGE).timeGauge().value(TimeUnit.SECONDS))
                .isEqualTo(5);
    }

    @Test
    void shouldObserveEachPageFromItsStartToItsEndEvenWhenPagesOverlap() {
        PropagationListener p = micrometer.propagationListener();
        p.onPageStart("j1", 1, 1, 100);
        p.onPageStart("j1", 1, 2, 100);
        p.onPageEnd("j1", 2, null);
        p.onPageEnd("j1", 1, new IllegalStateException("boom"));
        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(PropagationMeters.OBSERVATION, 2);
    }

    @Test
    void shouldCountRebuildsStaleWritesAndPendingIntents() {
        ViewListener v = micrometer.viewListener();
        Intent a = new Intent("a", Intent.Target.SOURCE, "s1", null, Instant.now(), "me");
        Intent b = new Intent("b", Intent.Target.PARENT, "p1", null, Instant.now(), "me");
        v.onIntentRecorded(a);
        v.onIntentRecorded(b);
        v.onIntentCleared(a);
        v.onStale("s1", 7);
        assertThat(registry.get(ViewMeters.PENDING).gauge().value()).isEqualTo(1);
        assertThat(registry.get(ViewMeters.INTENTS)
                        .tags("event", "recorded")
                        .counter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get(ViewMeters.STALE).counter().count()).isEqualTo(1);
    }

    private double documents(String outcome) {
        return registry.get(PropagationMeters.DOCUMENTS)
                .tags("outcome", outcome)
                .counter()
                .count();
    }

    private static Progress progress(String job, JobCounts counts) {
        return new Progress(job, "p1", 1, counts, Duration.ofSeconds(1), 10, null);
    }
}
