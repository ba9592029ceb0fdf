package io.github.esrel.benchmarks;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * Two workloads in alternating rounds (A then B, then B then A, ...), so that a drift of the machine's load, or of
 * the node warming up, falls on both alike; for figures that compare two sides of one run.
 */
final class AlternatingRounds {

    /** One round of a workload: returns the operations it made. */
    interface Round {
        long run() throws Exception;
    }

    /**
     * Throughput of each side in operations per second over all its rounds, the median of the rounds' own ratios (B / A
     * of adjacent runs), which a burst of load on the machine moves less, and their spread (interquartile range over
     * median): differences smaller than it are the machine's noise.
     */
    record Result(double a, double b, double medianRoundRatio, double spread) {
        /** B's throughput over A's, over all rounds. */
        double ratio() {
            return b / a;
        }

        /**
         * Prints the row (both throughputs, B/A over all rounds, the median of the rounds' ratios, the spread) and
         * records it with the median of the rounds' ratios, which a burst of load in one round moves less.
         */
        void report(PrintStream out, BenchRecord record, String benchmark, String what, String unit) {
            out.printf(
                    "  %-72s %,9.0f %,9.0f %7.2fx %9.2fx %7.1f %%%n",
                    what, a, b, ratio(), medianRoundRatio, spread * 100);
            record.add(benchmark, what, b, unit, medianRoundRatio, BenchRecord.Better.HIGHER, spread);
        }
    }

    private AlternatingRounds() {}

    static Result run(int rounds, Round a, Round b) throws Exception {
        long aOps = 0;
        long aNanos = 0;
        long bOps = 0;
        long bNanos = 0;
        double[] ratios = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            double aRate = 0;
            double bRate = 0;
            for (boolean isB : i % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) {
                long start = System.nanoTime();
                long ops = isB ? b.run() : a.run();
                long took = System.nanoTime() - start;
                if (isB) {
                    bOps += ops;
                    bNanos += took;
                    bRate = ops / (double) took;
                } else {
                    aOps += ops;
                    aNanos += took;
                    aRate = ops / (double) took;
                }
            }
            ratios[i] = bRate / aRate;
        }
        Arrays.sort(ratios);
        double median = ratios[rounds / 2];
        double spread = (ratios[rounds * 3 / 4] - ratios[rounds / 4]) / median;
        return new Result(aOps / (aNanos / 1e9), bOps / (bNanos / 1e9), median, spread);
    }
}
