package io.github.esrel.benchmarks;

import io.github.esrel.micrometer.EsrelMicrometer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * What esrel-micrometer's listeners cost: one workload run with and without them in the same run, in alternating
 * rounds (off/on, then on/off, so that a drift of the machine's load falls on both alike), and the throughput of
 * each over all its rounds.
 */
final class MetersOverhead {

    /** One round of a workload: returns the operations it made. */
    interface Round {
        long run() throws Exception;
    }

    /**
     * Throughput without and with the meters, in operations per second over all rounds, and the median of the
     * rounds' own ratios (on / off of adjacent runs), which a burst of load on the machine moves less, and their spread
     * (interquartile range over median): differences smaller than it are the machine's noise.
     */
    record Result(double off, double on, double medianRoundRatio, double spread) {
        double ratio() {
            return on / off;
        }
    }

    private MetersOverhead() {}

    /**
     * Meters in a {@link SimpleMeterRegistry} and observations through a registry whose handler turns them into
     * timers too, as a Boot application with Actuator has: the heaviest of the usual setups.
     */
    static EsrelMicrometer instrumentation() {
        MeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        return EsrelMicrometer.builder()
                .registry(meters)
                .observations(observations)
                .build();
    }

    static Result alternate(int rounds, Round off, Round on) throws Exception {
        long offOps = 0;
        long offNanos = 0;
        long onOps = 0;
        long onNanos = 0;
        double[] ratios = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            double offRate = 0;
            double onRate = 0;
            for (boolean metered : i % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) {
                long start = System.nanoTime();
                long ops = metered ? on.run() : off.run();
                long took = System.nanoTime() - start;
                if (metered) {
                    onOps += ops;
                    onNanos += took;
                    onRate = ops / (double) took;
                } else {
                    offOps += ops;
                    offNanos += took;
                    offRate = ops / (double) took;
                }
            }
            ratios[i] = onRate / offRate;
        }
        Arrays.sort(ratios);
        double median = ratios[rounds / 2];
        double spread = (ratios[rounds * 3 / 4] - ratios[rounds / 4]) / median;
        return new Result(offOps / (offNanos / 1e9), onOps / (onNanos / 1e9), median, spread);
    }

    static void print(PrintStream out, BenchRecord record, String bench, String what, String unit, Result r) {
        out.printf(
                "  %-72s %,9.0f %,9.0f %7.3fx %+6.1f %% %9.3fx %7.1f %%%n",
                what, r.off(), r.on(), r.ratio(), (r.ratio() - 1) * 100, r.medianRoundRatio(), r.spread() * 100);
        record.add(bench, what + ", without meters", r.off(), unit, Double.NaN, BenchRecord.Better.HIGHER, Double.NaN);
        record.add(bench, what + ", with meters", r.on(), unit, r.ratio(), BenchRecord.Better.HIGHER, r.spread());
    }

    static void header(PrintStream out, String unit) {
        out.printf(
                "  %-72s %9s %9s %8s %8s %10s %9s%n",
                "what", "off " + unit, "on " + unit, "on/off", "diff", "median r/r", "spread");
    }

    /**
     * The listener's own cost, without a cluster: {@code calls} calls of {@code call} in a loop, after as many to warm
     * up; nanoseconds per call.
     */
    static double nanosPerCall(int calls, Runnable call) {
        for (int i = 0; i < calls; i++) {
            call.run();
        }
        long start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            call.run();
        }
        return (System.nanoTime() - start) / (double) calls;
    }
}
