package io.github.esrel.testenv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;

/**
 * Finds a JDK that can run a given Elasticsearch version (9.x needs Java 21, 8.x Java 17), in this
 * order: the system property {@code esrel.testenv.java.home}; the running JVM; {@code JAVA_HOME};
 * the newest JDK under the usual install roots.
 */
final class JdkLocator {

    private static final List<Path> INSTALL_ROOTS = List.of(
            Path.of("/usr/lib/jvm"),
            Path.of("/opt/java"),
            Path.of("/usr/java"),
            Path.of("/Library/Java/JavaVirtualMachines"));

    private JdkLocator() {}

    static Path find(String esVersion) {
        int required = requiredJava(esVersion);
        Optional<Path> configured = TestenvProperties.javaHome();
        if (configured.isPresent()) {
            Path home = configured.get();
            OptionalInt found = javaVersion(home);
            if (found.orElse(0) < required) {
                throw new EsClusterException(TestenvProperties.JAVA_HOME
                        + "="
                        + home
                        + " is not a JDK "
                        + required
                        + "+ ("
                        + (found.isPresent() ? "it is Java " + found.getAsInt() : "no readable release file")
                        + "); Elasticsearch "
                        + esVersion
                        + " needs Java "
                        + required
                        + " or newer");
            }
            return home;
        }
        if (Runtime.version().feature() >= required) {
            return Path.of(System.getProperty("java.home"));
        }
        List<Path> candidates = new ArrayList<>();
        Optional.ofNullable(System.getenv("JAVA_HOME")).map(Path::of).ifPresent(candidates::add);
        INSTALL_ROOTS.forEach(root -> candidates.addAll(installedUnder(root)));
        return choose(candidates, required)
                .orElseThrow(() -> new EsClusterException("Elasticsearch "
                        + esVersion
                        + " needs a JDK "
                        + required
                        + "+ and none was found (looked at this JVM, JAVA_HOME and "
                        + INSTALL_ROOTS
                        + "). Install one (e.g. apt-get install openjdk-"
                        + required
                        + "-jdk-headless) or set -D"
                        + TestenvProperties.JAVA_HOME
                        + "=/path/to/jdk"));
    }

    /** Java feature version Elasticsearch {@code esVersion} runs on at least. */
    static int requiredJava(String esVersion) {
        int major = Integer.parseInt(esVersion.substring(0, esVersion.indexOf('.')));
        return major >= 9 ? 21 : 17;
    }

    /**
     * The first candidate that is at least {@code required}, JAVA_HOME first, then the newest
     * installed one.
     */
    static Optional<Path> choose(List<Path> candidates, int required) {
        if (!candidates.isEmpty() && javaVersion(candidates.get(0)).orElse(0) >= required) {
            return Optional.of(candidates.get(0));
        }
        return candidates.stream()
                .filter(home -> javaVersion(home).orElse(0) >= required)
                .max(Comparator.comparingInt(home -> javaVersion(home).orElse(0)));
    }

    /** The feature version from {@code <home>/release}, if that file exists and names one. */
    static OptionalInt javaVersion(Path home) {
        try {
            return parseRelease(Files.readAllLines(home.resolve("release")));
        } catch (IOException e) {
            return OptionalInt.empty();
        }
    }

    /** Parses the {@code JAVA_VERSION="21.0.2"} line of a JDK release file. */
    static OptionalInt parseRelease(List<String> lines) {
        for (String line : lines) {
            if (line.startsWith("JAVA_VERSION=")) {
                return feature(line.substring("JAVA_VERSION=".length())
                        .replace("\"", "")
                        .trim());
            }
        }
        return OptionalInt.empty();
    }

    /** {@code 1.8.0_292} is 8, {@code 21.0.2} and {@code 21-ea} are 21. */
    static OptionalInt feature(String version) {
        String[] parts = version.split("[._+-]");
        try {
            int first = Integer.parseInt(parts[0]);
            return OptionalInt.of(first == 1 && parts.length > 1 ? Integer.parseInt(parts[1]) : first);
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    private static List<Path> installedUnder(Path root) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> homes = Files.list(root)) {
            // macOS keeps the home one level down.
            return homes.map(h -> Files.isDirectory(h.resolve("Contents/Home")) ? h.resolve("Contents/Home") : h)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
