import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Where run-tests' minutes go: after each pass, {@code collect} reads the Surefire and Failsafe reports that
 * pass wrote (files newer than its start) and appends one row per test class; at the end, {@code report}
 * prints a table of the passes and the slowest test classes of the whole run. A single-file program (run as
 * {@code java tools/TestTimes.java ...}) so that run-tests needs nothing but the JDK it already has.
 *
 * <pre>
 * collect DIR PASS START_MILLIS [MODULE...]   rows "pass, module, kind, class, tests, failures, errors, skipped,
 *                                           seconds" into DIR/classes.tsv (of these modules only, when named: passes
 *                                           that run at the same time write reports of their own modules)
 * report  DIR [N]                 the passes of DIR/passes.tsv ("pass, seconds, exit status") and the N slowest classes
 * </pre>
 */
public final class TestTimes {

    record Row(String pass, String module, String kind, String testClass, int tests, int failures, int errors,
            int skipped, double seconds) {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[1]);
        switch (args[0]) {
            case "collect" -> collect(dir, args[2], Long.parseLong(args[3]), List.of(args).subList(4, args.length));
            case "report" -> report(dir, args.length > 2 ? Integer.parseInt(args[2]) : 10);
            default -> throw new IllegalArgumentException("collect or report, not " + args[0]);
        }
    }

    static void collect(Path dir, String pass, long since, List<String> modules) throws Exception {
        List<String> lines = new ArrayList<>();
        var factory = DocumentBuilderFactory.newInstance();
        try (Stream<Path> files = Files.walk(Path.of("."), 6)) {
            for (Path f : files.filter(TestTimes::isReport).sorted().toList()) {
                if (Files.getLastModifiedTime(f).toMillis() < since) {
                    continue; // written by an earlier pass
                }
                String module = f.normalize().getName(0).toString();
                if (!modules.isEmpty() && !modules.contains(module)) {
                    continue; // another pass's, running at the same time
                }
                Element suite = factory.newDocumentBuilder().parse(f.toFile()).getDocumentElement();
                Path reports = f.getParent();
                String kind = reports.getFileName().toString().startsWith("failsafe") ? "IT" : "unit";
                // Counted from the test cases: a @Nested class's tests are in its outer class's report, whose
                // own attributes count none of them.
                int tests = 0, failures = 0, errors = 0, skipped = 0;
                NodeList cases = suite.getElementsByTagName("testcase");
                for (int i = 0; i < cases.getLength(); i++) {
                    Element c = (Element) cases.item(i);
                    tests++;
                    failures += c.getElementsByTagName("failure").getLength() > 0 ? 1 : 0;
                    errors += c.getElementsByTagName("error").getLength() > 0 ? 1 : 0;
                    skipped += c.getElementsByTagName("skipped").getLength() > 0 ? 1 : 0;
                }
                lines.add(String.join("\t", pass, module, kind, suite.getAttribute("name"), String.valueOf(tests),
                        String.valueOf(failures), String.valueOf(errors), String.valueOf(skipped),
                        number(suite, "time")));
            }
        }
        Files.createDirectories(dir);
        Files.write(dir.resolve("classes.tsv"), lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    private static boolean isReport(Path f) {
        String name = f.getFileName().toString();
        String parent = f.getParent() == null ? "" : f.getParent().getFileName().toString();
        return name.startsWith("TEST-") && name.endsWith(".xml")
                && (parent.equals("surefire-reports") || parent.startsWith("failsafe-reports"));
    }

    private static String number(Element e, String attribute) {
        String v = e.getAttribute(attribute).replace(",", "");
        return v.isEmpty() ? "0" : v;
    }

    static void report(Path dir, int slowest) throws IOException {
        List<Row> rows = new ArrayList<>();
        Path classes = dir.resolve("classes.tsv");
        if (Files.exists(classes)) {
            for (String line : Files.readAllLines(classes, StandardCharsets.UTF_8)) {
                String[] c = line.split("\t");
                rows.add(new Row(c[0], c[1], c[2], c[3], Integer.parseInt(c[4]), Integer.parseInt(c[5]),
                        Integer.parseInt(c[6]), Integer.parseInt(c[7]), Double.parseDouble(c[8])));
            }
        }
        System.out.println();
        System.out.println("=== esrel tests: passes");
        System.out.printf(Locale.ROOT, "%-78s %7s %7s %8s %7s %8s  %s%n", "pass", "unit", "IT", "failed", "skipped",
                "time", "result");
        Path passes = dir.resolve("passes.tsv");
        long total = 0;
        for (String line : Files.exists(passes) ? Files.readAllLines(passes, StandardCharsets.UTF_8) : List.<String>of()) {
            String[] c = line.split("\t");
            String pass = c[0];
            long seconds = Long.parseLong(c[1]);
            total += seconds;
            List<Row> of = rows.stream().filter(r -> r.pass().equals(pass)).toList();
            System.out.printf(Locale.ROOT, "%-78s %7d %7d %8d %7d %6d s  %s%n", pass,
                    of.stream().filter(r -> r.kind().equals("unit")).mapToInt(Row::tests).sum(),
                    of.stream().filter(r -> r.kind().equals("IT")).mapToInt(Row::tests).sum(),
                    of.stream().mapToInt(r -> r.failures() + r.errors()).sum(),
                    of.stream().mapToInt(Row::skipped).sum(), seconds,
                    c[2].equals("0") ? "ok" : "FAILED (exit " + c[2] + ")");
        }
        // Not the run's wall time: some passes run at the same time (run-tests prints the wall time).
        System.out.printf(Locale.ROOT, "%-78s %7s %7s %8s %7s %6d s%n", "the passes' times added up", "", "", "", "",
                total);

        System.out.println();
        System.out.println("=== esrel tests: the " + slowest + " slowest test classes of the run");
        System.out.printf(Locale.ROOT, "%8s  %-44s %-18s %s%n", "time", "pass", "module", "class");
        rows.stream()
                .sorted(Comparator.comparingDouble(Row::seconds).reversed())
                .limit(slowest)
                .forEach(r -> System.out.printf(Locale.ROOT, "%6.0f s  %-44s %-18s %s%n", r.seconds(),
                        abbreviate(r.pass(), 44), r.module(), simpleName(r.testClass())));
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
