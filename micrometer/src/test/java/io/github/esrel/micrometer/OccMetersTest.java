package io.github.esrel.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.occ.OccException;
import io.github.esrel.occ.OccListener;
import io.github.esrel.occ.Outcome;
import io.github.esrel.occ.TestOutcomes;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OccMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final TestObservationRegistry observations = TestObservationRegistry.create();
    private final OccListener meters = EsrelMicrometer.builder()
            .registry(registry)
            .observations(observations)
            .tags(List.of(Tag.of("app", "shop")))
            .build()
            .occListener();

    private void call(Outcome.Operation op, Outcome.Status status, int attempts, int conflicts) {
        meters.onStart("designs", op);
        for (int i = 1; i <= conflicts; i++) {
            meters.onConflict("designs", "1", i);
        }
        meters.onOutcome(TestOutcomes.of(op, "designs", status, attempts, conflicts));
    }

    @Test
    void shouldCountCallsByIndexOperationAndOutcomeWithTheirTime() {
        call(Outcome.Operation.UPDATE, Outcome.Status.UPDATED, 1, 0);
        call(Outcome.Operation.UPDATE, Outcome.Status.UPDATED, 3, 2);
        call(Outcome.Operation.UPSERT, Outcome.Status.CREATED, 1, 0);
        call(Outcome.Operation.UPDATE, Outcome.Status.CONFLICT, 5, 5);

        assertThat(registry.get(OccMeters.CALLS)
                        .tags("index", "designs", "operation", "update", "outcome", "updated", "app", "shop")
                        .timer()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get(OccMeters.CALLS)
                        .tags("operation", "update", "outcome", "updated")
                        .timer()
                        .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS))
                .isGreaterThanOrEqualTo(6);
        assertThat(registry.get(OccMeters.CALLS)
                        .tags("operation", "upsert", "outcome", "created")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get(OccMeters.ATTEMPTS)
                        .tags("operation", "update")
                        .summary()
                        .totalAmount())
                .isEqualTo(9);
        assertThat(registry.get(OccMeters.CONFLICTS)
                        .tags("index", "designs")
                        .counter()
                        .count())
                .isEqualTo(7);
        assertThat(registry.get(OccMeters.GIVE_UPS)
                        .tags("operation", "update")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void shouldTagACallWithTheIndexTheCallerNamedNotTheOneAnAliasResolvedTo() {
        meters.onStart("designs", Outcome.Operation.UPDATE);
        meters.onConflict("designs", "1", 1);
        meters.onOutcome(TestOutcomes.of(Outcome.Operation.UPDATE, "designs-000002", Outcome.Status.UPDATED, 2, 1));
        assertThat(registry.get(OccMeters.CALLS)
                        .tags("index", "designs")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.find(OccMeters.CALLS)
                        .tags("index", "designs-000002")
                        .timer())
                .isNull();
        // A bulk item names the index as given, and has no start event.
        meters.onOutcome(TestOutcomes.of(Outcome.Operation.BULK, "designs", Outcome.Status.UPDATED, 1, 0));
        assertThat(registry.get(OccMeters.CALLS)
                        .tags("index", "designs", "operation", "bulk")
                        .timer()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void shouldRecordCombinedWritesAndTheCallsTheyCarried() {
        meters.onCombinedWrite("designs", 4);
        meters.onCombinedWrite("designs", 2);
        var combined =
                registry.get(OccMeters.COMBINED_WRITES).tags("index", "designs").summary();
        assertThat(combined.count()).isEqualTo(2);
        assertThat(combined.totalAmount()).isEqualTo(6);
        assertThat(combined.max()).isEqualTo(4);
    }

    @Test
    void shouldRegisterEachMeterOnceHoweverManyCalls() {
        call(Outcome.Operation.UPDATE, Outcome.Status.UPDATED, 2, 1);
        int meters = registry.getMeters().size();
        for (int i = 0; i < 100; i++) {
            call(Outcome.Operation.UPDATE, Outcome.Status.UPDATED, 2, 1);
        }
        assertThat(registry.getMeters()).hasSize(meters);
    }

    @Test
    void shouldObserveEachCallFromItsStartToItsOutcome() {
        call(Outcome.Operation.DELETE_IF, Outcome.Status.DELETED, 2, 1);
        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsEqualTo(1)
                .hasObservationWithNameEqualTo(OccMeters.OBSERVATION)
                .that()
                .hasContextualNameEqualTo("esrel delete_if")
                .hasLowCardinalityKeyValue("index", "designs")
                .hasLowCardinalityKeyValue("operation", "delete_if")
                .hasLowCardinalityKeyValue("outcome", "deleted")
                .hasBeenStarted()
                .hasBeenStopped();
        assertThat(observations.getCurrentObservation()).isNull();
    }

    @Test
    void shouldEndTheObservationOfAFailedCallWithItsError() {
        OccException failure = new OccException("boom", 500, null);
        meters.onStart("designs", Outcome.Operation.UPDATE);
        meters.onFailure("designs", Outcome.Operation.UPDATE, failure, Duration.ofMillis(2));
        TestObservationRegistryAssert.assertThat(observations)
                .hasObservationWithNameEqualTo(OccMeters.OBSERVATION)
                .that()
                .hasLowCardinalityKeyValue("outcome", "error")
                .hasError(failure)
                .hasBeenStopped();
        assertThat(registry.get(OccMeters.CALLS)
                        .tags("operation", "update", "outcome", "error")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(observations.getCurrentObservation()).isNull();
    }

    @Test
    void shouldPairNestedCallsAndLeaveOtherObservationsAlone() {
        Observation mine = Observation.start("caller", observations);
        try (Observation.Scope scope = mine.openScope()) {
            assertThat(scope.getCurrentObservation()).isSameAs(mine);
            meters.onStart("designs", Outcome.Operation.UPDATE);
            call(Outcome.Operation.UPSERT, Outcome.Status.CREATED, 1, 0); // a function's own call, nested
            meters.onOutcome(TestOutcomes.of(Outcome.Operation.BULK, "designs", Outcome.Status.UPDATED, 1, 0));
            meters.onOutcome(TestOutcomes.of(Outcome.Operation.UPDATE, "designs", Outcome.Status.UPDATED, 1, 0));
            assertThat(observations.getCurrentObservation()).isSameAs(mine);
            meters.onOutcome(TestOutcomes.of(Outcome.Operation.UPDATE, "designs", Outcome.Status.UPDATED, 1, 0));
            assertThat(observations.getCurrentObservation()).isSameAs(mine); // not esrel's: never closed by it
        }
        mine.stop();
        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(OccMeters.OBSERVATION, 2)
                .forAllObservationsWithNameEqualTo(
                        OccMeters.OBSERVATION, o -> o.hasLowCardinalityKeyValueWithKey("outcome"));
    }

    @Test
    void shouldObserveNothingWithoutAnObservationRegistry() {
        OccListener plain = EsrelMicrometer.of(registry).occListener();
        plain.onStart("designs", Outcome.Operation.UPDATE);
        plain.onOutcome(TestOutcomes.of(Outcome.Operation.UPDATE, "designs", Outcome.Status.UPDATED, 1, 0));
        TestObservationRegistryAssert.assertThat(observations).doesNotHaveAnyObservation();
        assertThat(registry.get(OccMeters.CALLS).timer().count()).isEqualTo(1);
    }

    @Test
    void shouldHandTheSameListenerEveryTime() {
        EsrelMicrometer m = EsrelMicrometer.of(registry);
        assertThat(m.occListener()).isSameAs(m.occListener());
        assertThat(m.lockListener()).isSameAs(m.lockListener());
        assertThat(m.propagationListener()).isSameAs(m.propagationListener());
        assertThat(m.viewListener()).isSameAs(m.viewListener());
    }
}
