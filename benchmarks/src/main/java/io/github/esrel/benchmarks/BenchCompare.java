package io.github.esrel.benchmarks;

import io.github.esrel.benchmarks.BenchRecord.Better;
import io.github.esrel.benchmarks.BenchRecord.Figure;
import io.github.esrel.benchmarks.BenchRecord.Run;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Compares two benchmark records side by side: each figure's value and ratio in both runs, the change of the
 * ratio (ratios, not values: each is measured against a baseline of its own run, so machine drift between the
 * runs cancels out), and whether it moved by more than the larger of the two runs' spreads.
 */
final class BenchCompare {

    private BenchCompare() {}

    static void print(Path before, Path after, PrintStream out) throws IOException {
        Run a = BenchRecord.read(before);
        Run b = BenchRecord.read(after);
        out.printf("A: %s  %s%nB: %s  %s%n", before.getFileName(), facts(a), after.getFileName(), facts(b));
        out.printf(
                "%-12s %-70s %22s %22s %8s %8s %8s %8s  %s%n",
                "benchmark", "what", "A value", "B value", "A ratio", "B ratio", "change", "spread", "verdict");
        Map<String, Figure> inB = new LinkedHashMap<>();
        b.figures().forEach(f -> inB.put(key(f), f));
        for (Figure fa : a.figures()) {
            Figure fb = inB.remove(key(fa));
            if (fb == null) {
                out.printf("%-12s %-70.70s %22s %22s%n", fa.benchmark(), fa.what(), value(fa), "(not in B)");
                continue;
            }
            boolean byRatio = fa.ratio() != null && fb.ratio() != null;
            double change = byRatio ? fb.ratio() / fa.ratio() - 1 : fb.value() / fa.value() - 1;
            Double spread = max(fa.spread(), fb.spread());
            out.printf(
                    "%-12s %-70.70s %22s %22s %8s %8s %+7.0f%% %8s  %s%n",
                    fa.benchmark(),
                    fa.what(),
                    value(fa),
                    value(fb),
                    ratio(fa),
                    ratio(fb),
                    change * 100,
                    spread == null ? "-" : String.format("%.0f%%", spread * 100),
                    verdict(change, spread, fa.better(), byRatio));
        }
        inB.values()
                .forEach(
                        f -> out.printf("%-12s %-70.70s %22s %22s%n", f.benchmark(), f.what(), "(not in A)", value(f)));
        out.println("change: of the ratio to the same run's baseline where both runs have one, else of the value;"
                + " moved: by more than the larger spread of the two runs.");
    }

    static String verdict(double change, Double spread, Better better, boolean byRatio) {
        String what = byRatio ? "" : " (value: machine drift not cancelled)";
        if (spread == null) {
            return "? (measured once)" + what;
        }
        if (Math.abs(change) <= spread) {
            return "within spread" + what;
        }
        boolean up = change > 0;
        return ((better == Better.HIGHER) == up ? "moved: better" : "moved: worse") + what;
    }

    private static Double max(Double a, Double b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        return Math.max(a, b);
    }

    private static String key(Figure f) {
        return f.benchmark() + "\u0000" + f.what();
    }

    private static String value(Figure f) {
        return String.format("%,.1f %s", f.value(), f.unit());
    }

    private static String ratio(Figure f) {
        return f.ratio() == null ? "-" : String.format("%.2fx", f.ratio());
    }

    private static String facts(Run r) {
        return r.started() + ", Elasticsearch " + r.machine().get("elasticsearch") + ", "
                + r.machine().getOrDefault("client", "esrel-client") + ", "
                + r.machine().get("cores") + " cores, load " + r.machine().get("loadAverageAtStart") + " -> "
                + r.machine().get("loadAverageAtEnd");
    }
}
