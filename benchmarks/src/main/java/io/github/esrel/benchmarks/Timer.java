package io.github.esrel.benchmarks;

import java.util.Arrays;

/** Repeats a measured action and reports the median: simple, and robust against one noisy round. */
final class Timer {

    interface Action {
        void run() throws Exception;
    }

    private Timer() {}

    /** Median wall time in nanoseconds of {@code rounds} runs after {@code warmups} unmeasured ones. */
    static long medianNanos(int warmups, int rounds, Action action) throws Exception {
        for (int i = 0; i < warmups; i++) {
            action.run();
        }
        long[] times = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            action.run();
            times[i] = System.nanoTime() - start;
        }
        Arrays.sort(times);
        return times[rounds / 2];
    }
}
