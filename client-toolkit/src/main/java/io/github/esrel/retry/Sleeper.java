package io.github.esrel.retry;

import java.time.Duration;

/**
 * Waits between attempts. {@link #SYSTEM} sleeps the calling thread; tests inject one that only
 * records the delays (and advances a fake clock), so they never sleep for real.
 */
@FunctionalInterface
public interface Sleeper {

    /** {@link Thread#sleep}, to the nanosecond. */
    Sleeper SYSTEM = d -> {
        if (!d.isZero()) {
            Thread.sleep(d.toMillis(), (int) (d.toNanos() % 1_000_000));
        }
    };

    /**
     * Blocks for {@code delay}.
     *
     * @param delay the time to wait; zero returns at once
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void sleep(Duration delay) throws InterruptedException;
}
