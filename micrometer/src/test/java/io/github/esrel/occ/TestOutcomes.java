package io.github.esrel.occ;

import java.time.Duration;

/** Outcomes for unit tests of listeners, which cannot make them otherwise without a cluster. */
public final class TestOutcomes {

    private TestOutcomes() {}

    /**
     * An outcome as an operation reports it.
     *
     * @param operation the operation
     * @param index the index
     * @param status the status
     * @param attempts attempts made
     * @param conflicts conflicts met
     * @return the outcome; it took about 3 ms
     */
    public static Outcome<Object> of(
            Outcome.Operation operation, String index, Outcome.Status status, int attempts, int conflicts) {
        return Outcome.builder(index, "1", null, status)
                .operation(operation)
                .attempts(attempts, conflicts)
                .since(System.nanoTime() - Duration.ofMillis(3).toNanos())
                .build();
    }
}
