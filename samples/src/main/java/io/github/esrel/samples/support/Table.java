package io.github.esrel.samples.support;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with aligned columns, for the samples' output. */
public final class Table {

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    private Table(List<String> header) {
        this.header = header;
    }

    public static Table of(String... header) {
        return new Table(List.of(header));
    }

    public Table row(Object... cells) {
        List<String> row = new ArrayList<>(cells.length);
        for (Object c : cells) {
            row.add(String.valueOf(c));
        }
        rows.add(row);
        return this;
    }

    public void print(PrintStream out) {
        int[] widths = new int[header.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = header.get(i).length();
            for (List<String> r : rows) {
                widths[i] = Math.max(widths[i], r.get(i).length());
            }
        }
        line(out, header, widths);
        StringBuilder rule = new StringBuilder("  ");
        for (int w : widths) {
            rule.append("-".repeat(w)).append("  ");
        }
        out.println(rule.toString().stripTrailing());
        rows.forEach(r -> line(out, r, widths));
    }

    /** A bar of '#' proportional to value/max, at most {@code width} long. */
    public static String bar(long value, long max, int width) {
        return max == 0 ? "" : "#".repeat((int) Math.round((double) value * width / max));
    }

    private static void line(PrintStream out, List<String> cells, int[] widths) {
        StringBuilder sb = new StringBuilder("  ");
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            boolean numeric = c.matches("-?[0-9.,x%]+");
            sb.append(numeric ? " ".repeat(widths[i] - c.length()) + c : c + " ".repeat(widths[i] - c.length()))
                    .append("  ");
        }
        out.println(sb.toString().stripTrailing());
    }
}
