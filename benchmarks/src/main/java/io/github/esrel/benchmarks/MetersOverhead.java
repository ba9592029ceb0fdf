package io.github.esrel.benchmarks;

import io.github.esrel.micrometer.EsrelMicrometer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.PrintStream;

/**
 * What esrel-micrometer's listeners cost: one workload run with and without them in the same run, in
 * {@link AlternatingRounds}.
 */
final class MetersOverhead {

    private MetersOverhead() {}

    /** Meters in a {@link SimpleMeterRegistry}, no observations: what {@code EsrelMicrometer.of(registry)} gives. */
    static EsrelMicrometer metersOnly() {
        return EsrelMicrometer.of(new SimpleMeterRegistry());
    }

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

    static void print(
            PrintStream out, BenchRecord record, String bench, String what, String unit, AlternatingRounds.Result r) {
        print(out, record, bench, what, "meters", unit, r);
    }

    /**
     * One row: {@code what} without and with {@code listeners} (what the instrumentation holds, for the record's
     * names).
     */
    static void print(
            PrintStream out,
            BenchRecord record,
            String bench,
            String what,
            String listeners,
            String unit,
            AlternatingRounds.Result r) {
        String row = listeners.equals("meters") ? what : what + ", " + listeners;
        out.printf(
                "  %-72s %,9.0f %,9.0f %7.3fx %+6.1f %% %9.3fx %7.1f %%%n",
                row, r.a(), r.b(), r.ratio(), (r.ratio() - 1) * 100, r.medianRoundRatio(), r.spread() * 100);
        record.add(
                bench, what + ", without " + listeners, r.a(), unit, Double.NaN, BenchRecord.Better.HIGHER, Double.NaN);
        // The ratio recorded is the median of the rounds' own: a burst of load in one round moves it less.
        record.add(
                bench,
                what + ", with " + listeners,
                r.b(),
                unit,
                r.medianRoundRatio(),
                BenchRecord.Better.HIGHER,
                r.spread());
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
