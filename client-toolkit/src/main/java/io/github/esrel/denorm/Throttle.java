package io.github.esrel.denorm;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Paces a job to at most {@code perSecond} documents per second: each batch may start once the time
 * the previous batches "cost" at that rate has passed. No bursts are saved up while idle. Not
 * thread-safe.
 */
final class Throttle {

    private final double perSecond;
    private final LongSupplier nanoClock;
    private long nextFree = Long.MIN_VALUE;

    Throttle(double perSecond, LongSupplier nanoClock) {
        this.perSecond = perSecond;
        this.nanoClock = nanoClock;
    }

    /** No throttling. */
    static Throttle none() {
        return new Throttle(0, System::nanoTime);
    }

    /** How long to wait before a batch of {@code documents} may go; books the batch. */
    Duration acquire(int documents) {
        if (perSecond <= 0) {
            return Duration.ZERO;
        }
        long now = nanoClock.getAsLong();
        if (nextFree == Long.MIN_VALUE || nextFree < now) {
            nextFree = now;
        }
        long wait = nextFree - now;
        nextFree += (long) (documents / perSecond * 1e9);
        return Duration.ofNanos(wait);
    }

    /**
     * Documents per batch so that one batch costs about a second at this rate (at least 1), capped by
     * {@code batchSize}: a slow throttle then waits in short steps, stays cancellable and keeps its
     * heartbeat fresh.
     */
    int batchSize(int batchSize) {
        if (perSecond <= 0) {
            return batchSize;
        }
        return (int) Math.max(1, Math.min(batchSize, Math.ceil(perSecond)));
    }
}
