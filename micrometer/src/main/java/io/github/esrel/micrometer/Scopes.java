package io.github.esrel.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Ends observations that an esrel listener started and opened a scope for on the caller's thread: the listener
 * interfaces pair a start event with an end event on the same thread, so the observation to end is the current one,
 * if it is esrel's of the right kind (a caller's own observation opened in between is never closed by esrel).
 */
final class Scopes {

    private Scopes() {}

    /** Starts {@code observation} and makes it current on this thread until {@link #end}. */
    static void open(Observation observation) {
        observation.start().openScope();
    }

    /**
     * Closes the scope of the current observation if its context is of type {@code kind}, and returns the
     * observation (to stop); {@code null} when the current observation is not one of {@code kind}.
     */
    static @Nullable Observation close(ObservationRegistry registry, Class<? extends Observation.Context> kind) {
        Observation.Scope scope = registry.getCurrentObservationScope();
        if (scope == null || !kind.isInstance(scope.getCurrentObservation().getContext())) {
            return null;
        }
        Observation observation = scope.getCurrentObservation();
        scope.close();
        return observation;
    }
}
