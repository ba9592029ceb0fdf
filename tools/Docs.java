import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Keeps the guide true: README.md, CONTRIBUTING.md, SECURITY.md, CHANGELOG.md, docs/ and the module READMEs.
 * A single-file program (run as {@code java tools/Docs.java ...}), so that it needs nothing but a JDK; the
 * architecture module's {@code DocsTest} runs {@code check} in every build.
 *
 * <pre>
 * check [ROOT]                     fails (exit 1), listing every problem, when
 *                                  - a Java, XML, properties or YAML block of README.md or docs/ has no snippet marker,
 *                                    or differs from the tagged region it names;
 *                                  - a tagged region is shown nowhere, or a marker names a file or region that is not
 *                                    there;
 *                                  - a generated table differs from what the newest record gives;
 *                                  - a relative link or an anchor does not resolve;
 *                                  - a page carries run history (commit hashes, run dates, record names, load averages).
 * write [ROOT]                     rewrites every marked snippet from its region and every generated table from the
 *                                  newest record (then check passes for those two)
 * record-faults [REPORTS] [ES]     a record of the fault suite's figures: the FIGURE rows its tests printed into
 *                                  REPORTS (default faults/target/failsafe-reports), written to
 *                                  faults/records/faults-TIME-esES.json (ES: the root pom's elasticsearch.version)
 * table RECORD                     prints a benchmark record's figures as a table
 * </pre>
 *
 * <p>A snippet: a fenced block right after {@code <!-- snippet: PATH#NAME -->} (PATH from the repository root) is the
 * region of PATH between the comment lines holding {@code tag::NAME[]} and {@code end::NAME[]}, without those lines,
 * other regions' markers inside it and the lines from {@code hide::begin[]} to {@code hide::end[]} (a test's checks in
 * the middle of what the page shows), its common indentation removed. Changing either side alone fails {@code check}.
 *
 * <p>A generated table: the lines between {@code <!-- generated: bench NAME -->} (or {@code generated: faults}) and
 * {@code <!-- end generated -->}, from the newest record in benchmarks/records holding benchmark NAME (or the newest
 * in faults/records).
 */
public final class Docs {

    /** Fenced blocks of these languages must be snippets of code that runs. */
    private static final Set<String> CODE = Set.of("java", "xml", "properties", "yaml", "yml");

    private static final Pattern SNIPPET = Pattern.compile("<!--\\s*snippet:\\s*(\\S+?)#(\\S+)\\s*-->");
    private static final Pattern GENERATED = Pattern.compile("<!--\\s*generated:\\s*(.+?)\\s*-->");
    private static final Pattern GENERATED_END = Pattern.compile("<!--\\s*end generated\\s*-->");
    private static final Pattern FENCE = Pattern.compile("^(\\s*)(```+|~~~+)\\s*([\\w+-]*).*$");
    /** A region's marker: a comment line of its own ({@code //}, {@code #}, {@code <!--}) holding tag:: or end::. */
    private static final Pattern TAG =
            Pattern.compile("^\\s*(?://|#|<!--|/?\\*)\\s*(tag|end)::([\\w.-]+)\\[\\]");

    /** Lines of a region the page leaves out (a test's checks inside a block it shows): hide::begin[] to hide::end[]. */
    private static final Pattern HIDE = Pattern.compile("^\\s*(?://|#|<!--|/?\\*)\\s*hide::(begin|end)\\[\\]");

    private final Path root;
    private final List<String> problems = new ArrayList<>();

    private Docs(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            usage();
        }
        switch (args[0]) {
            case "check" -> {
                Docs docs = new Docs(Path.of(args.length > 1 ? args[1] : "."));
                docs.check();
                if (!docs.problems.isEmpty()) {
                    docs.problems.forEach(p -> System.out.println("docs: " + p));
                    System.out.println("docs: " + docs.problems.size() + " problem(s); `java tools/Docs.java write`"
                            + " rewrites snippets and generated tables from their sources");
                    System.exit(1);
                }
                System.out.println("docs: snippets, generated tables, links and pages are in order");
            }
            case "write" -> new Docs(Path.of(args.length > 1 ? args[1] : ".")).write();
            case "record-faults" -> recordFaults(
                    Path.of(args.length > 1 ? args[1] : "faults/target/failsafe-reports"),
                    args.length > 2 ? args[2] : pomProperty(Path.of("pom.xml"), "elasticsearch.version"));
            case "table" -> {
                if (args.length != 2) {
                    usage();
                }
                Map<String, Object> record = Json.object(Files.readString(Path.of(args[1])));
                System.out.print(benchTable(record, null));
            }
            default -> usage();
        }
    }

    private static void usage() {
        System.err.println("usage: java tools/Docs.java check|write [ROOT] | record-faults [REPORTS] [ES] | table RECORD");
        System.exit(2);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The pages

    /** Every page a user reads: the front door, the guide, the project's own files and the module READMEs. */
    private List<Path> pages() throws IOException {
        Set<Path> pages = new java.util.LinkedHashSet<>();
        for (String name : List.of("README.md", "CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md")) {
            if (Files.exists(root.resolve(name))) {
                pages.add(root.resolve(name));
            }
        }
        pages.addAll(guide());
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(Files::isDirectory).sorted().toList()) {
                if (isBuildOutput(module) || module.equals(root.resolve("docs"))) {
                    continue;
                }
                files(module, 2).stream()
                        .filter(f -> f.getFileName().toString().equals("README.md"))
                        .forEach(pages::add);
            }
        }
        return List.copyOf(pages);
    }

    /** README.md and docs/: where every code block is a snippet of code that runs. */
    private List<Path> guide() throws IOException {
        List<Path> pages = new ArrayList<>();
        if (Files.exists(root.resolve("README.md"))) {
            pages.add(root.resolve("README.md"));
        }
        Path docs = root.resolve("docs");
        if (Files.isDirectory(docs)) {
            files(docs, Integer.MAX_VALUE).stream()
                    .filter(f -> f.toString().endsWith(".md"))
                    .forEach(pages::add);
        }
        return pages;
    }

    /**
     * The regular files below {@code from}, at most {@code depth} levels down, never entering build output: a
     * {@code target} folder holds other passes' copies of the tree and the data of running nodes, whose files come
     * and go while this walks.
     */
    private List<Path> files(Path from, int depth) throws IOException {
        List<Path> out = new ArrayList<>();
        Files.walkFileTree(from, Set.of(), depth, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult preVisitDirectory(
                    Path dir, java.nio.file.attribute.BasicFileAttributes attrs) {
                return !dir.equals(from) && isBuildOutput(dir)
                        ? java.nio.file.FileVisitResult.SKIP_SUBTREE
                        : java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes a) {
                if (a.isRegularFile()) {
                    out.add(file);
                }
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) {
                return java.nio.file.FileVisitResult.CONTINUE; // gone while walking
            }
        });
        out.sort(Comparator.naturalOrder());
        return out;
    }

    private boolean isBuildOutput(Path f) {
        Path relative = root.relativize(f);
        for (Path part : relative) {
            String p = part.toString();
            if (p.equals("target") || p.equals(".git") || p.equals("node_modules")) {
                return true;
            }
        }
        return false;
    }

    private String rel(Path p) {
        return root.relativize(p).toString();
    }

    private void check() throws IOException {
        Set<String> shown = new HashSet<>();
        for (Path page : guide()) {
            checkSnippets(page, shown);
            checkTables(page);
        }
        checkRegionsShown(shown);
        for (Path page : pages()) {
            checkLinks(page);
            checkHistory(page);
        }
    }

    private void write() throws IOException {
        for (Path page : guide()) {
            String text = Files.readString(page, StandardCharsets.UTF_8);
            String written = writeTables(page, writeSnippets(page, text));
            if (!written.equals(text)) {
                Files.writeString(page, written, StandardCharsets.UTF_8);
                System.out.println("docs: wrote " + rel(page));
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Snippets

    /** A fenced block: its language, the lines of its content (0-based line numbers of the page), its marker. */
    private record Block(String language, int open, int close, List<String> content, Optional<Matcher> marker) {}

    private static List<Block> blocks(List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String fence = open.group(2);
            int close = i + 1;
            while (close < lines.size() && !lines.get(close).strip().startsWith(fence)) {
                close++;
            }
            Optional<Matcher> marker = Optional.empty();
            if (i > 0) {
                Matcher m = SNIPPET.matcher(lines.get(i - 1));
                if (m.find()) {
                    marker = Optional.of(m);
                }
            }
            List<String> content = lines.subList(i + 1, Math.min(close, lines.size()));
            blocks.add(new Block(open.group(3).toLowerCase(Locale.ROOT), i, close, List.copyOf(content), marker));
            i = close;
        }
        return blocks;
    }

    private void checkSnippets(Path page, Set<String> shown) throws IOException {
        List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        for (Block b : blocks(lines)) {
            String where = rel(page) + ":" + (b.open() + 1);
            if (b.marker().isEmpty()) {
                if (CODE.contains(b.language())) {
                    problems.add(where + ": a " + b.language() + " block without `<!-- snippet: PATH#NAME -->` above"
                            + " it: every such block is a tagged region of code that runs");
                }
                continue;
            }
            String file = b.marker().get().group(1);
            String name = b.marker().get().group(2);
            shown.add(file + "#" + name);
            Optional<List<String>> region = region(file, name, where);
            if (region.isEmpty()) {
                continue;
            }
            List<String> expected = stripTrailing(region.get());
            List<String> actual = stripTrailing(b.content());
            if (!expected.equals(actual)) {
                int at = 0;
                while (at < expected.size() && at < actual.size() && expected.get(at).equals(actual.get(at))) {
                    at++;
                }
                problems.add(String.format(
                        "%s: the block differs from %s#%s at its line %d:%n    page: %s%n    code: %s",
                        where,
                        file,
                        name,
                        at + 1,
                        at < actual.size() ? actual.get(at) : "(block ends)",
                        at < expected.size() ? expected.get(at) : "(region ends)"));
            }
        }
    }

    private String writeSnippets(Path page, String text) throws IOException {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        List<Block> blocks = blocks(lines);
        for (int k = blocks.size() - 1; k >= 0; k--) {
            Block b = blocks.get(k);
            if (b.marker().isEmpty()) {
                continue;
            }
            Optional<List<String>> region = region(b.marker().get().group(1), b.marker().get().group(2), rel(page));
            if (region.isPresent()) {
                List<String> replaced = lines.subList(b.open() + 1, b.close());
                replaced.clear();
                replaced.addAll(stripTrailing(region.get()));
            }
        }
        return String.join("\n", lines);
    }

    /** The region NAME of FILE, dedented; empty (and a problem recorded) when there is none. */
    private Optional<List<String>> region(String file, String name, String where) throws IOException {
        Path source = root.resolve(file).normalize();
        if (!source.startsWith(root) || !Files.isRegularFile(source)) {
            problems.add(where + ": the snippet's file " + file + " does not exist");
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
        int start = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = TAG.matcher(lines.get(i));
            if (!m.find() || !m.group(2).equals(name)) {
                continue;
            }
            if (m.group(1).equals("tag")) {
                if (start >= 0) {
                    problems.add(file + ": region " + name + " starts twice");
                }
                start = i;
            } else if (start >= 0 && end < 0) {
                end = i;
            }
        }
        if (start < 0 || end < start) {
            problems.add(where + ": " + file + " has no region " + name
                    + " (lines `tag::" + name + "[]` ... `end::" + name + "[]`)");
            return Optional.empty();
        }
        List<String> region = new ArrayList<>();
        boolean hidden = false;
        for (String line : lines.subList(start + 1, end)) {
            Matcher hide = HIDE.matcher(line);
            if (hide.find()) {
                hidden = hide.group(1).equals("begin");
            } else if (!hidden && !TAG.matcher(line).find()) {
                region.add(line);
            }
        }
        int indent = region.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        return Optional.of(region.stream()
                .map(l -> l.isBlank() ? "" : l.substring(indent))
                .toList());
    }

    private static List<String> stripTrailing(List<String> lines) {
        return lines.stream().map(String::stripTrailing).toList();
    }

    /** Every tagged region in the sources is shown on some page: a region is the text of a snippet, nothing else. */
    private void checkRegionsShown(Set<String> shown) throws IOException {
        for (Path f : files(root, Integer.MAX_VALUE)) {
            String name = f.getFileName().toString();
            if (name.endsWith(".md") || name.endsWith(".jar") || name.endsWith(".zip") || name.endsWith(".json")
                    || rel(f).startsWith("tools/Docs.java")) {
                continue;
            }
            String text;
            try {
                text = Files.readString(f, StandardCharsets.UTF_8);
            } catch (IOException | UncheckedIOException e) {
                continue; // not text
            }
            if (!text.contains("tag::")) {
                continue;
            }
            for (String line : text.split("\n")) {
                Matcher m = TAG.matcher(line);
                if (m.find() && m.group(1).equals("tag") && !shown.contains(rel(f) + "#" + m.group(2))) {
                    problems.add(rel(f) + ": region " + m.group(2) + " is shown on no page (README.md, docs/)");
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Generated tables

    private void checkTables(Path page) throws IOException {
        String text = Files.readString(page, StandardCharsets.UTF_8);
        String written = writeTables(page, text);
        if (!written.equals(text)) {
            List<String> a = List.of(text.split("\n", -1));
            List<String> b = List.of(written.split("\n", -1));
            int at = 0;
            while (at < a.size() && at < b.size() && a.get(at).equals(b.get(at))) {
                at++;
            }
            problems.add(rel(page) + ":" + (at + 1) + ": a generated table differs from what the newest record gives"
                    + " (`java tools/Docs.java write`)");
        }
    }

    private String writeTables(Path page, String text) throws IOException {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        for (int i = lines.size() - 1; i >= 0; i--) {
            Matcher m = GENERATED.matcher(lines.get(i));
            if (!m.find()) {
                continue;
            }
            int end = i + 1;
            while (end < lines.size() && !GENERATED_END.matcher(lines.get(end)).find()) {
                end++;
            }
            if (end == lines.size()) {
                problems.add(rel(page) + ":" + (i + 1) + ": a generated table without `<!-- end generated -->`");
                continue;
            }
            Optional<String> table = table(m.group(1), rel(page) + ":" + (i + 1));
            if (table.isPresent()) {
                List<String> replaced = lines.subList(i + 1, end);
                replaced.clear();
                replaced.add(""); // the table a block of its own between the markers, as Markdown renders it
                replaced.addAll(List.of(table.get().split("\n")));
                replaced.add("");
            }
        }
        return String.join("\n", lines);
    }

    /** The table a {@code generated:} marker asks for: {@code bench NAME} or {@code faults}. */
    private Optional<String> table(String what, String where) throws IOException {
        String[] words = what.trim().split("\\s+");
        if (words[0].equals("bench") && words.length == 2) {
            for (Path record : newestFirst(root.resolve("benchmarks/records"), "bench-")) {
                Map<String, Object> run = Json.object(Files.readString(record, StandardCharsets.UTF_8));
                if (figures(run).stream().anyMatch(f -> words[1].equals(f.get("benchmark")))) {
                    return Optional.of(benchTable(run, words[1]));
                }
            }
            problems.add(where + ": no record in benchmarks/records holds benchmark " + words[1]);
            return Optional.empty();
        }
        if (words[0].equals("faults") && words.length == 1) {
            List<Path> records = newestFirst(root.resolve("faults/records"), "faults-");
            if (records.isEmpty()) {
                problems.add(where + ": no record in faults/records");
                return Optional.empty();
            }
            return Optional.of(faultTable(Json.object(Files.readString(records.get(0), StandardCharsets.UTF_8))));
        }
        problems.add(where + ": unknown generated table `" + what + "` (bench NAME, faults)");
        return Optional.empty();
    }

    /** Record files newest first: their names begin with the time of the run. */
    private static List<Path> newestFirst(Path dir, String prefix) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix))
                    .filter(f -> f.getFileName().toString().endsWith(".json"))
                    .sorted(Comparator.comparing((Path f) -> f.getFileName().toString()).reversed())
                    .toList();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> figures(Map<String, Object> run) {
        return (List<Map<String, Object>>) run.getOrDefault("figures", List.of());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> machine(Map<String, Object> run) {
        return (Map<String, Object>) run.getOrDefault("machine", Map.of());
    }

    /** A benchmark's figures (all of them when {@code benchmark} is null), with what they ran on; no date, no load. */
    static String benchTable(Map<String, Object> run, String benchmark) {
        Map<String, Object> machine = machine(run);
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT,
                "Elasticsearch %s, %s, %s cores, Java %s.%n%n",
                machine.get("elasticsearch"),
                machine.getOrDefault("client", "esrel-client"),
                number(machine.get("cores"), "%.0f"),
                machine.get("java")));
        out.append(benchmark == null ? "| benchmark | what | value | ratio to the run's baseline | spread |\n"
                : "| what | value | ratio to the run's baseline | spread |\n");
        out.append(benchmark == null ? "|---|---|---:|---:|---:|\n" : "|---|---:|---:|---:|\n");
        for (Map<String, Object> f : figures(run)) {
            if (benchmark != null && !benchmark.equals(f.get("benchmark"))) {
                continue;
            }
            String what = String.valueOf(f.get("what")).replace("|", "\\|");
            String ratio = f.get("ratio") == null
                    // A figure without a ratio is a baseline only when it says so (counts have none).
                    ? (what.contains("baseline") ? "baseline" : "—")
                    : String.format(
                            Locale.ROOT,
                            "%.2fx (%s is better)",
                            ((Number) f.get("ratio")).doubleValue(),
                            String.valueOf(f.get("better")).toLowerCase(Locale.ROOT));
            String spread = f.get("spread") == null
                    ? "once"
                    : String.format(Locale.ROOT, "%.0f%%", ((Number) f.get("spread")).doubleValue() * 100);
            String value = String.format(Locale.ROOT, "%,.1f %s", ((Number) f.get("value")).doubleValue(), f.get("unit"));
            out.append(benchmark == null
                    ? String.format("| %s | %s | %s | %s | %s |%n", f.get("benchmark"), what, value, ratio, spread)
                    : String.format("| %s | %s | %s | %s |%n", what, value, ratio, spread));
        }
        return out.toString().stripTrailing();
    }

    /** The fault suite's figures, with what they ran on; no date. */
    static String faultTable(Map<String, Object> run) {
        Map<String, Object> machine = machine(run);
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT,
                "Elasticsearch %s, the suite's 3-node cluster, %s cores.%n%n",
                machine.get("elasticsearch"),
                number(machine.get("cores"), "%.0f")));
        out.append("| test | fault | capability | operations | violations | recovery ms | notes |\n");
        out.append("|---|---|---|---:|---:|---:|---|\n");
        for (Map<String, Object> f : figures(run)) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s | %s | %s |%n",
                    cell(f.get("test")),
                    shortened(cell(f.get("fault"))),
                    cell(f.get("capability")),
                    number(f.get("operations"), "%,.0f"),
                    number(f.get("violations"), "%,.0f"),
                    f.get("recoveryMs") == null ? "-" : number(f.get("recoveryMs"), "%,.0f"),
                    shortened(cell(f.get("notes")))));
        }
        return out.toString().stripTrailing();
    }

    /** A cell of at most 400 characters: a row may quote a whole error body, which the record keeps. */
    private static String shortened(String cell) {
        return cell.length() <= 400 ? cell : cell.substring(0, 399).stripTrailing() + "…";
    }

    private static String cell(Object o) {
        return o == null ? "" : String.valueOf(o).replace("|", "\\|");
    }

    private static String number(Object o, String format) {
        return o instanceof Number n ? String.format(Locale.ROOT, format, n.doubleValue()) : String.valueOf(o);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The fault suite's records

    /** {@code FIGURE | fault | capability | operations | violations | recovery ms | notes} (Figures.row). */
    private static final Pattern FIGURE = Pattern.compile(
            "^FIGURE \\| (.*?) \\| (.*?) \\| (-?\\d+) \\| (-?\\d+) \\| (-|-?\\d+) \\| (.*)$");

    /** The same as {@code key=value} fields without notes (the helpers in Faults). */
    private static final Pattern FIGURE_FIELDS = Pattern.compile(
            "^FIGURE \\| fault=(.*?) \\| capability=(.*?) \\| operations=(-?\\d+) \\| violations=(-?\\d+)"
                    + " \\| recovery_ms=(-|-?\\d+)()$");

    private static Matcher figure(String row) {
        Matcher fields = FIGURE_FIELDS.matcher(row);
        return fields.matches() ? fields : FIGURE.matcher(row);
    }

    static void recordFaults(Path reports, String esVersion) throws IOException {
        List<String> rows = new ArrayList<>();
        try (Stream<Path> files = Files.list(reports)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith("-output.txt"))
                    .sorted()
                    .toList()) {
                String name = f.getFileName().toString();
                String test = name.substring(0, name.length() - "-output.txt".length());
                test = test.substring(test.lastIndexOf('.') + 1);
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    if (!lines.get(i).startsWith("FIGURE |")) {
                        continue;
                    }
                    // A row whose text held a line break (an exception's message) continues on the next lines.
                    String row = lines.get(i).strip();
                    for (int next = i + 1;
                            !figure(row).matches() && next < lines.size() && next <= i + 5
                                    && !lines.get(next).startsWith("FIGURE |");
                            next++) {
                        row = row + " " + lines.get(next).strip();
                    }
                    Matcher m = figure(row);
                    if (!m.matches()) {
                        System.err.println("docs: not a FIGURE row, left out: " + lines.get(i));
                    } else {
                        rows.add(String.format(
                                "    {\"test\": %s, \"fault\": %s, \"capability\": %s, \"operations\": %s,"
                                        + " \"violations\": %s, \"recoveryMs\": %s, \"notes\": %s}",
                                Json.quote(test),
                                Json.quote(m.group(1)),
                                Json.quote(m.group(2)),
                                m.group(3),
                                m.group(4),
                                m.group(5).startsWith("-") ? "null" : m.group(5),
                                Json.quote(m.group(6))));
                    }
                }
            }
        }
        if (rows.isEmpty()) {
            System.err.println("docs: no FIGURE rows in " + reports + "/*-output.txt: run the fault suite first");
            System.exit(1);
        }
        Instant now = Instant.now();
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(now);
        Path out = Path.of("faults/records/faults-" + stamp + "-es" + esVersion + ".json");
        Files.createDirectories(out.getParent());
        double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        String json = "{\n  \"recorded\": " + Json.quote(now.toString()) + ",\n  \"machine\": {\"elasticsearch\": "
                + Json.quote(esVersion) + ", \"cores\": " + Runtime.getRuntime().availableProcessors()
                + ", \"loadAverageWhenRecorded\": " + String.format(Locale.ROOT, "%.2f", load) + "},\n  \"figures\": [\n"
                + String.join(",\n", rows) + "\n  ]\n}\n";
        Files.writeString(out, json, StandardCharsets.UTF_8);
        System.out.println("docs: " + rows.size() + " figures recorded in " + out
                + " (`java tools/Docs.java write` puts them into docs/reliability.md)");
    }

    private static String pomProperty(Path pom, String name) throws IOException {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(Files.readString(pom));
        return m.find() ? m.group(1).trim() : "unknown";
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Links and anchors

    private static final Pattern LINK = Pattern.compile("\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE = Pattern.compile("^\\s*\\[[^\\]]+\\]:\\s*(\\S+)");
    private static final Pattern HREF = Pattern.compile("<a\\s+[^>]*href=\"([^\"]+)\"");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern EXPLICIT_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

    private final Map<Path, Set<String>> anchors = new HashMap<>();

    private void checkLinks(Path page) throws IOException {
        List<String> lines = prose(Files.readAllLines(page, StandardCharsets.UTF_8));
        for (int i = 0; i < lines.size(); i++) {
            String line = withoutInlineCode(lines.get(i));
            List<String> targets = new ArrayList<>();
            for (Pattern p : List.of(LINK, REFERENCE, HREF)) {
                Matcher m = p.matcher(line);
                while (m.find()) {
                    targets.add(m.group(1));
                }
            }
            for (String target : targets) {
                checkLink(page, i + 1, target);
            }
        }
    }

    private void checkLink(Path page, int line, String target) throws IOException {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return; // https:, mailto:: not this check's business
        }
        String where = rel(page) + ":" + line;
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? page : page.getParent().resolve(decode(path)).normalize();
        if (!resolved.startsWith(root)) {
            problems.add(where + ": the link " + target + " leaves the repository");
            return;
        }
        if (!Files.exists(resolved)) {
            problems.add(where + ": the link " + target + " leads nowhere (" + rel(resolved) + " does not exist)");
            return;
        }
        if (anchor != null && !anchor.isEmpty()) {
            if (!resolved.toString().endsWith(".md")) {
                if (!anchor.matches("L\\d+(-L\\d+)?")) {
                    problems.add(where + ": the link " + target + " has an anchor into a file that is not a page");
                }
                return;
            }
            if (!anchorsOf(resolved).contains(anchor)) {
                problems.add(where + ": the link " + target + " names an anchor " + rel(resolved) + " does not have");
            }
        }
    }

    private static String decode(String path) {
        return path.replace("%20", " ");
    }

    private Set<String> anchorsOf(Path page) throws IOException {
        Set<String> known = anchors.get(page);
        if (known != null) {
            return known;
        }
        known = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(Files.readAllLines(page, StandardCharsets.UTF_8))) {
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String slug = slug(h.group(2));
                int n = seen.merge(slug, 1, Integer::sum);
                known.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
            Matcher a = EXPLICIT_ANCHOR.matcher(line);
            while (a.find()) {
                known.add(a.group(1));
            }
        }
        anchors.put(page, known);
        return known;
    }

    /** GitHub's anchor of a heading: its text without markup, lower case, punctuation dropped, spaces as hyphens. */
    static String slug(String heading) {
        String text = heading
                .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // links: their text
                .replaceAll("<[^>]+>", ""); // HTML tags
        StringBuilder slug = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            } else if (c == ' ') {
                slug.append('-');
            }
        });
        return slug.toString();
    }

    /** The page's lines with fenced code blanked out (their line numbers kept). */
    private static List<String> prose(List<String> lines) {
        List<String> out = new ArrayList<>(lines);
        for (Block b : blocks(lines)) {
            for (int i = b.open(); i <= Math.min(b.close(), lines.size() - 1); i++) {
                out.set(i, "");
            }
        }
        return out;
    }

    private static String withoutInlineCode(String line) {
        return line.replaceAll("(`+)(?:(?!\\1).)+?\\1", "``");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // No lab notebook

    private static final Map<Pattern, String> HISTORY = new LinkedHashMap<>();

    static {
        HISTORY.put(
                Pattern.compile("(?<![\\w/#.-])(?=(?:[0-9]*[a-f]){2})(?=(?:[a-f]*[0-9]){2})[0-9a-f]{7,40}(?![\\w-])"),
                "a commit hash");
        HISTORY.put(Pattern.compile("\\b(?:bench|faults)-\\d{8}-\\d{6}"), "a record's name");
        HISTORY.put(Pattern.compile("\\b20\\d\\d-[01]\\d-[0-3]\\d\\b"), "a date");
        HISTORY.put(Pattern.compile("(?i)\\bload average|\\bload \\d|\\(load "), "a load average");
        HISTORY.put(Pattern.compile("(?i)\\b(?:the run before|whole run|in this run|today's run)"), "a run's diary");
    }

    private void checkHistory(Path page) throws IOException {
        List<String> lines = prose(Files.readAllLines(page, StandardCharsets.UTF_8));
        boolean changelog = page.getFileName().toString().equals("CHANGELOG.md");
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (changelog && (line.startsWith("## [") || line.startsWith("["))) {
                continue; // a release's heading carries its date, the link references their tags
            }
            line = line.replaceAll("\\]\\([^)]*\\)", "]()"); // link targets are paths, not prose
            for (Map.Entry<Pattern, String> h : HISTORY.entrySet()) {
                Matcher m = h.getKey().matcher(line);
                if (m.find()) {
                    problems.add(rel(page) + ":" + (i + 1) + ": run history (" + h.getValue() + ": `" + m.group()
                            + "`) has no place on a page a user reads: measurements live in records and reach the"
                            + " pages as generated tables");
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** Just enough JSON for the records: objects, arrays, strings, numbers, true, false, null. */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(String text) {
            Json json = new Json(text);
            Object value = json.value();
            json.space();
            if (json.i != text.length() || !(value instanceof Map)) {
                throw new IllegalArgumentException("not a JSON object");
            }
            return (Map<String, Object>) value;
        }

        static String quote(String v) {
            StringBuilder out = new StringBuilder("\"");
            for (char c : v.toCharArray()) {
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            out.append(String.format("\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            return out.append('"').toString();
        }

        private void space() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private Object value() {
            space();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> map = new TreeMap<>();
                i++;
                space();
                if (s.charAt(i) == '}') {
                    i++;
                    return map;
                }
                while (true) {
                    space();
                    String key = string();
                    space();
                    expect(':');
                    map.put(key, value());
                    space();
                    if (s.charAt(i) == ',') {
                        i++;
                    } else {
                        expect('}');
                        return map;
                    }
                }
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                i++;
                space();
                if (s.charAt(i) == ']') {
                    i++;
                    return list;
                }
                while (true) {
                    list.add(value());
                    space();
                    if (s.charAt(i) == ',') {
                        i++;
                    } else {
                        expect(']');
                        return list;
                    }
                }
            }
            if (c == '"') {
                return string();
            }
            for (String word : List.of("true", "false", "null")) {
                if (s.startsWith(word, i)) {
                    i += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word);
                }
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                throw new IllegalArgumentException("unexpected '" + c + "' at " + i);
            }
            return Double.parseDouble(s.substring(start, i));
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (s.charAt(i) != '"') {
                char c = s.charAt(i++);
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n' -> out.append('\n');
                        case 't' -> out.append('\t');
                        case 'r' -> out.append('\r');
                        case 'b' -> out.append('\b');
                        case 'f' -> out.append('\f');
                        case 'u' -> {
                            out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> out.append(e);
                    }
                } else {
                    out.append(c);
                }
            }
            i++;
            return out.toString();
        }

        private void expect(char c) {
            if (s.charAt(i) != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + i + ", found '" + s.charAt(i) + "'");
            }
            i++;
        }
    }
}
