package io.github.esrel.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The summary of a soak: one row per fault kind × capability, in the order they first happened, with the
 * injections, the operations the capability did while the fault was in effect, the violations of its
 * guarantee found and its recovery times (median and max); then a line of totals over the rows and a
 * line for the whole soak (faults and the calm between them), as a markdown table. Not thread-safe: the
 * soak's driver thread fills it.
 */
final class SoakTable {

    private record Key(String fault, String capability) {}

    private static final class Cell {
        long injections;
        long operations;
        long violations;
        final List<Long> recoveries = new ArrayList<>();
    }

    private final Map<Key, Cell> rows = new LinkedHashMap<>();
    private int injections;

    /** Counts one injection of a fault, whatever the capabilities it is recorded for. */
    void injected() {
        injections++;
    }

    /** Records what {@code capability} did through one injection of {@code fault}; a negative recovery is none. */
    void add(String fault, String capability, long operations, long violations, long recoveryMs) {
        Cell c = rows.computeIfAbsent(new Key(fault, capability), k -> new Cell());
        c.injections++;
        c.operations += operations;
        c.violations += violations;
        if (recoveryMs >= 0) {
            c.recoveries.add(recoveryMs);
        }
    }

    /** Violations over every row. */
    long violations() {
        return rows.values().stream().mapToLong(c -> c.violations).sum();
    }

    /**
     * The table.
     *
     * @param wholeOperations operations of every capability over the whole soak; negative for a soak that
     *     stopped early, whose table then has no whole-soak line
     * @param wholeViolations violations found by the checks at the end of the soak
     */
    String markdown(long wholeOperations, long wholeViolations) {
        StringBuilder out = new StringBuilder();
        out.append("| fault | capability | injections | operations during | violations | recovery ms median"
                + " | recovery ms max |\n");
        out.append("|---|---|---:|---:|---:|---:|---:|\n");
        List<Long> all = new ArrayList<>();
        long operations = 0;
        for (Map.Entry<Key, Cell> e : rows.entrySet()) {
            Cell c = e.getValue();
            line(
                    out,
                    e.getKey().fault(),
                    e.getKey().capability(),
                    c.injections,
                    c.operations,
                    c.violations,
                    c.recoveries);
            all.addAll(c.recoveries);
            operations += c.operations;
        }
        line(out, "**total**", "", injections, operations, violations(), all);
        if (wholeOperations >= 0) {
            line(
                    out,
                    "**whole soak**",
                    "all, checked at the end",
                    injections,
                    wholeOperations,
                    wholeViolations,
                    List.of());
        }
        return out.toString();
    }

    private static void line(
            StringBuilder out,
            String fault,
            String capability,
            long injections,
            long operations,
            long violations,
            List<Long> recoveries) {
        out.append("| ")
                .append(fault)
                .append(" | ")
                .append(capability)
                .append(" | ")
                .append(injections)
                .append(" | ")
                .append(operations)
                .append(" | ")
                .append(violations)
                .append(" | ")
                .append(recoveries.isEmpty() ? "-" : Long.toString(median(recoveries)))
                .append(" | ")
                .append(recoveries.isEmpty() ? "-" : Long.toString(max(recoveries)))
                .append(" |\n");
    }

    /** The median; of an even count, the mean of the two middle values rounded down. */
    static long median(List<Long> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        List<Long> sorted = values.stream().sorted().toList();
        int mid = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2;
    }

    private static long max(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).max().orElseThrow();
    }
}
