package io.github.esrel.benchmarks;

import io.github.esrel.benchmarks.BenchRecord.Figure;
import io.github.esrel.benchmarks.BenchRecord.Run;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/** The README's benchmark table, generated from one record. */
final class BenchTable {

    private BenchTable() {}

    static void print(Path file, PrintStream out) throws IOException {
        Run run = BenchRecord.read(file);
        out.printf(
                "Measured %s: Elasticsearch %s, one node (propagation-shards: 3 nodes of its own), %s, %s cores,"
                        + " Java %s,"
                        + " load average %s at the start and %s at the end (generated from `%s`).%n%n",
                run.started(),
                run.machine().get("elasticsearch"),
                run.machine().getOrDefault("client", "esrel-client"),
                run.machine().get("cores"),
                run.machine().get("java"),
                load(run, "loadAverageAtStart"),
                load(run, "loadAverageAtEnd"),
                file.getFileName());
        out.println("| benchmark | what | value | ratio to the run's baseline | spread |");
        out.println("|---|---|---:|---:|---:|");
        for (Figure f : run.figures()) {
            out.printf(
                    "| %s | %s | %,.1f %s | %s | %s |%n",
                    f.benchmark(),
                    f.what().replace("|", "\\|"),
                    f.value(),
                    f.unit(),
                    f.ratio() == null
                            // A figure without a ratio is a baseline only when it says so (counts have none).
                            ? (f.what().contains("baseline") ? "baseline" : "—")
                            : String.format(
                                    "%.2fx (%s is better)",
                                    f.ratio(), f.better().name().toLowerCase()),
                    f.spread() == null ? "once" : String.format("%.0f%%", f.spread() * 100));
        }
    }

    private static String load(Run run, String key) {
        Object v = run.machine().get(key);
        return v instanceof Number n ? String.format("%.1f", n.doubleValue()) : String.valueOf(v);
    }
}
