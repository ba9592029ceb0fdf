package io.github.esrel.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The repository as the rules see it, read from its files and nothing else: the modules (every {@code pom.xml} of
 * packaging {@code jar}, with its {@code target/classes}), the BOMs' artifacts, and the per-line source folders. A new
 * module is found by itself; nothing here lists one.
 */
final class Tree {

    /** A module with main code: its artifact and where its compiled classes are. */
    record Module(String artifactId, Path dir, Path classes) {
        @Override
        public String toString() {
            return artifactId;
        }
    }

    /**
     * A per-line source folder ({@code src/main/client-es9}, {@code src/main/compat/plugin-rest-9.5}): the classes it
     * declares (by name) and the types its files import.
     */
    record LineFolder(Path dir, Set<String> classes, Set<String> imports) {
        @Override
        public String toString() {
            return dir.toString();
        }
    }

    private static final Set<String> SKIPPED_DIRS = Set.of("target", "node_modules", ".git", ".mvn", ".idea");
    /** The folders of {@code src/main} and {@code src/test} that hold no line's code. */
    private static final Set<String> SHARED_FOLDERS = Set.of("java", "resources");

    private static final Pattern IMPORT =
            Pattern.compile("^import\\s+(?:static\\s+)?([\\w.]+(?:\\.\\*)?)\\s*;", Pattern.MULTILINE);

    final Path root;

    Tree(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    static Tree fromBuild() {
        return new Tree(Path.of(System.getProperty("esrel.repository.root", "..")));
    }

    /** Every module of packaging {@code jar} that has main code, by artifactId. */
    Map<String, Module> modules() {
        Map<String, Module> modules = new TreeMap<>();
        for (Path pom : files(root, p -> p.getFileName().toString().equals("pom.xml"))) {
            String text = read(pom);
            String own = text.replaceAll("(?s)<parent>.*?</parent>", "").replaceAll("(?s)<dependencies>.*", "");
            String artifactId = first(own, "<artifactId>([^<]+)</artifactId>");
            String packaging = first(own, "<packaging>([^<]+)</packaging>");
            String groupId = first(own, "<groupId>([^<]+)</groupId>");
            Path dir = pom.getParent();
            // A project of another group is not esrel's: samples/quickstart is a user's project, as the README shows it
            // (built outside the repository by testenv's OutsideProjectIT, never by this reactor).
            if (groupId != null && !groupId.equals("io.github.esrel")) {
                continue;
            }
            if (artifactId == null || packaging != null && !packaging.equals("jar") || !hasMainCode(dir, text)) {
                continue;
            }
            modules.put(artifactId, new Module(artifactId, dir, classesOf(dir)));
        }
        return modules;
    }

    /** The artifacts the BOMs publish: the libraries applications use. */
    Set<String> bomArtifacts() {
        Set<String> artifacts = new TreeSet<>();
        for (Path pom : files(
                root,
                p -> p.getFileName().toString().equals("pom.xml")
                        && p.getParent().getFileName().toString().startsWith("bom"))) {
            Matcher m =
                    Pattern.compile("<artifactId>(esrel-[^<]+)</artifactId>").matcher(read(pom));
            while (m.find()) {
                artifacts.add(m.group(1));
            }
        }
        return artifacts;
    }

    /**
     * The per-line folders of every source tree: each folder of {@code src/main} or {@code src/test} other than
     * {@code java} and {@code resources} that holds Java files, or, for a folder that holds them only in folders of its
     * own ({@code compat/}), each of those.
     */
    List<LineFolder> lineFolders() {
        List<LineFolder> folders = new ArrayList<>();
        for (Path src : files(root, p -> false, true)) {
            for (String kind : List.of("main", "test")) {
                Path base = src.resolve(kind);
                for (Path folder : children(base)) {
                    if (SHARED_FOLDERS.contains(folder.getFileName().toString()) || !Files.isDirectory(folder)) {
                        continue;
                    }
                    if (hasJavaDirectly(folder)) {
                        folders.add(lineFolder(folder));
                    } else {
                        for (Path inner : children(folder)) {
                            if (Files.isDirectory(inner)
                                    && !files(inner, f -> f.toString().endsWith(".java"))
                                            .isEmpty()) {
                                folders.add(lineFolder(inner));
                            }
                        }
                    }
                }
            }
        }
        return folders;
    }

    private LineFolder lineFolder(Path folder) {
        Set<String> classes = new TreeSet<>();
        Set<String> imports = new TreeSet<>();
        for (Path file : files(folder, f -> f.toString().endsWith(".java"))) {
            String name = folder.relativize(file).toString().replace('/', '.');
            classes.add(name.substring(0, name.length() - ".java".length()));
            Matcher m = IMPORT.matcher(read(file));
            while (m.find()) {
                imports.add(m.group(1));
            }
        }
        return new LineFolder(root.relativize(folder), classes, imports);
    }

    /**
     * Where a module's main classes are compiled: {@code target/classes}, or for a module that compiles each line to
     * a folder of its own (the plugin: {@code target/es9.5.3/classes}) the newest of those.
     */
    private static Path classesOf(Path dir) {
        Path classes = dir.resolve("target/classes");
        if (Files.isDirectory(classes)) {
            return classes;
        }
        return children(dir.resolve("target")).stream()
                .map(p -> p.resolve("classes"))
                .filter(Files::isDirectory)
                .max(java.util.Comparator.comparing(p -> {
                    try {
                        return Files.getLastModifiedTime(p);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }))
                .orElse(classes);
    }

    /** A module has main code when it has a {@code src/main} of its own or points its sources elsewhere. */
    private static boolean hasMainCode(Path dir, String pom) {
        return Files.isDirectory(dir.resolve("src/main")) || pom.contains("<sourceDirectory>");
    }

    private static boolean hasJavaDirectly(Path folder) {
        // A line folder holds a package tree (io/github/...); a folder of line folders holds folders that do.
        return children(folder).stream()
                .anyMatch(p -> p.getFileName().toString().equals("io"));
    }

    private static List<Path> children(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<Path> files(Path from, java.util.function.Predicate<Path> wanted) {
        return files(from, wanted, false);
    }

    /**
     * The files below {@code from} that {@code wanted} accepts, or with {@code srcDirs} the {@code src} folders. Build
     * output and tool folders are never entered: {@code target} holds other passes' copies of the tree and the data of
     * running nodes, whose files come and go while this walks.
     */
    private List<Path> files(Path from, java.util.function.Predicate<Path> wanted, boolean srcDirs) {
        List<Path> out = new ArrayList<>();
        try {
            Files.walkFileTree(from, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    if (!dir.equals(from)
                            && SKIPPED_DIRS.contains(dir.getFileName().toString())) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    if (srcDirs && dir.getFileName().toString().equals("src")) {
                        out.add(dir);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (!srcDirs && attrs.isRegularFile() && wanted.test(file)) {
                        out.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String first(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? m.group(1).trim() : null;
    }
}
