package io.github.esrel.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The figures of one benchmark run, kept next to what was printed and written as one JSON file per run (machine
 * facts and Elasticsearch version included), so that two runs can be compared side by side ({@link BenchCompare})
 * and the guide's tables generated from the newest kept in {@code benchmarks/records} ({@code java tools/Docs.java}).
 *
 * <p>Every figure carries its ratio to the baseline measured in the same run (the only comparison that means
 * anything on a noisy machine), which way is better, and its <em>spread</em>: how far repeated rounds of the same
 * code fell apart in this run (interquartile range / median for medians, (slowest - fastest) / fastest for
 * best-of-n figures; {@code null} when measured once). A change between two runs smaller than the spread is noise.
 */
final class BenchRecord {

    /** Which way a ratio is better. */
    enum Better {
        HIGHER,
        LOWER
    }

    /**
     * One figure.
     *
     * @param benchmark the benchmark's name, as on the command line ({@code routing}, {@code occ}, …)
     * @param what the row, as printed
     * @param value the measured value, in {@code unit}
     * @param unit what the value counts ({@code ms}, {@code docs/s}, …)
     * @param ratio the value against the same run's baseline, as printed; {@code null} for a baseline or a figure
     *     without one
     * @param better which way the ratio is better
     * @param spread the run-to-run spread of this figure in this run (relative), or {@code null} if measured once
     */
    record Figure(
            String benchmark, String what, double value, String unit, Double ratio, Better better, Double spread) {}

    private final Instant started = Instant.now();
    private final Map<String, Object> machine = new TreeMap<>();
    private final List<Figure> figures = new ArrayList<>();

    BenchRecord(String esVersion) {
        Runtime rt = Runtime.getRuntime();
        machine.put("elasticsearch", esVersion);
        machine.put("cores", rt.availableProcessors());
        machine.put("java", System.getProperty("java.version"));
        machine.put("client", client());
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        machine.put("maxHeapMb", rt.maxMemory() / (1024 * 1024));
        machine.put("loadAverageAtStart", loadAverage());
    }

    /** The client line the benchmarks ran on, e.g. "esrel-client-es8 on elasticsearch-java 8.19.12". */
    static String client() {
        return System.getProperty("esrel.bench.client", "esrel-client") + " on elasticsearch-java "
                + co.elastic.clients.transport.Version.VERSION;
    }

    /** Records a figure; {@code ratio} and {@code spread} may be NaN when there is none. */
    void add(String benchmark, String what, double value, String unit, double ratio, Better better, double spread) {
        figures.add(new Figure(
                benchmark,
                what.strip(),
                value,
                unit,
                Double.isFinite(ratio) ? ratio : null,
                better,
                Double.isFinite(spread) ? spread : null));
    }

    List<Figure> figures() {
        return List.copyOf(figures);
    }

    /** Writes {@code bench-<time>-es<version>.json} into {@code dir} and returns its path. */
    Path write(Path dir) throws IOException {
        machine.put("loadAverageAtEnd", loadAverage());
        Files.createDirectories(dir);
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(ZoneOffset.UTC)
                .format(started);
        Path file = dir.resolve("bench-" + stamp + "-es" + machine.get("elasticsearch") + ".json");
        Map<String, Object> json = new TreeMap<>();
        json.put("started", started.toString());
        json.put("machine", machine);
        json.put("figures", figures);
        MAPPER.writeValue(file.toFile(), json);
        return file;
    }

    /** Reads a file written by {@link #write}. */
    static Run read(Path file) throws IOException {
        return MAPPER.readValue(file.toFile(), Run.class);
    }

    /** A run as read back: when, on what, and its figures. */
    record Run(String started, Map<String, Object> machine, List<Figure> figures) {}

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
}
