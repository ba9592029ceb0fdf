package io.github.esrel.benchmarks;

import java.util.Arrays;

/** Repeats a measured action and reports the median: simple, and robust against one noisy round. */
final class Timer {

    interface Action {
        void run() throws Exception;
    }

    /**
     * The median of repeated rounds and their spread: the interquartile range relative to the median, which
     * says how far two runs of the same code drift apart on this machine (see {@link BenchRecord}).
     */
    record Sample(long medianNanos, double spread) {

        static Sample of(long[] nanos) {
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            long median = sorted[sorted.length / 2];
            long q1 = sorted[sorted.length / 4];
            long q3 = sorted[(3 * sorted.length) / 4];
            return new Sample(median, median == 0 ? 0 : (double) (q3 - q1) / median);
        }

        /** The spread of a best-of-n figure: (slowest - fastest) / fastest. */
        static double ofRuns(double... seconds) {
            double min = Arrays.stream(seconds).min().orElse(0);
            double max = Arrays.stream(seconds).max().orElse(0);
            return min <= 0 ? Double.NaN : (max - min) / min;
        }
    }

    private Timer() {}

    /** Median wall time in nanoseconds of {@code rounds} runs after {@code warmups} unmeasured ones. */
    static long medianNanos(int warmups, int rounds, Action action) throws Exception {
        return measure(warmups, rounds, action).medianNanos();
    }

    /** The median and spread of {@code rounds} runs after {@code warmups} unmeasured ones. */
    static Sample measure(int warmups, int rounds, Action action) throws Exception {
        for (int i = 0; i < warmups; i++) {
            action.run();
        }
        long[] times = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            action.run();
            times[i] = System.nanoTime() - start;
        }
        return Sample.of(times);
    }
}
