package io.github.esrel.testenv;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Every system property testenv reads, in one place (the README lists the same). */
final class TestenvProperties {

    static final String BACKEND = "esrel.testenv.backend";
    static final String ES_VERSION = "esrel.es.version";
    static final String ES_DISTRIBUTION = "esrel.es.distribution";
    static final String PLUGIN_ZIP = "esrel.plugin.zip";
    static final String WORK_DIR = "esrel.work.dir";
    static final String JAVA_HOME = "esrel.testenv.java.home";
    static final String USER = "esrel.testenv.user";
    static final String URL = "esrel.testenv.url";
    static final String USERNAME = "esrel.testenv.username";
    static final String PASSWORD = "esrel.testenv.password";
    static final String API_KEY = "esrel.testenv.api-key";
    static final String CA_FILE = "esrel.testenv.ca-file";
    static final String CA_FINGERPRINT = "esrel.testenv.ca-fingerprint";
    static final String START_TIMEOUT = "esrel.testenv.start-timeout";
    static final String IMAGE = "esrel.testenv.image";
    static final String DOCKER_NETWORK = "esrel.testenv.docker.network";
    static final String NODE_JAVA_OPTS = "esrel.testenv.node.java-opts";

    static final String DEFAULT_ES_VERSION = "9.5.3";
    static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(120);

    private TestenvProperties() {}

    static String backend() {
        String value = get(BACKEND).orElse("auto").toLowerCase(Locale.ROOT);
        if (!List.of("auto", "local", "docker", "external").contains(value)) {
            throw new EsClusterException(
                    BACKEND + "=" + value + " is not a backend: use auto, local, docker or external");
        }
        return value;
    }

    /**
     * {@code CLI_JAVA_OPTS} of a node: the options of the launcher ({@code bin/elasticsearch}'s CLI JVM), which lives
     * for seconds, computing the server's options and starting it. C2 would only cost it CPU, as would G1's threads and
     * the verification of Elasticsearch's own bytecode: 2.3 CPU-seconds a start with these options, 3.5 with the
     * defaults.
     */
    static final String LAUNCHER_JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
            + " -XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote";

    /**
     * {@code ES_JAVA_OPTS} of a node: its heap, then the options of {@code esrel.testenv.node.java-opts} if set (such
     * as esrel's build's {@code -XX:TieredStopAtLevel=1}: a test node's C2 compiler threads burn about as much CPU as
     * the node's own work).
     */
    static String esJavaOpts(String heap) {
        String heapOpts = "-Xms" + heap + " -Xmx" + heap;
        return get(NODE_JAVA_OPTS).map(extra -> heapOpts + " " + extra).orElse(heapOpts);
    }

    /** The docker backend's base image: a repository (the version is its tag) or a full name; empty: the official. */
    static Optional<String> image() {
        return get(IMAGE);
    }

    static String dockerNetwork() {
        String value = get(DOCKER_NETWORK).orElse("auto").toLowerCase(Locale.ROOT);
        if (!List.of("auto", "bridge", "host").contains(value)) {
            throw new EsClusterException(
                    DOCKER_NETWORK + "=" + value + " is not a networking: use auto, bridge or host");
        }
        return value;
    }

    static String esVersion() {
        return get(ES_VERSION).orElse(DEFAULT_ES_VERSION);
    }

    /** Seconds ({@code 300}) or ISO-8601 ({@code PT5M}); for machines shared with other builds. */
    static Duration startTimeout() {
        Optional<String> value = get(START_TIMEOUT);
        if (value.isEmpty()) {
            return DEFAULT_START_TIMEOUT;
        }
        try {
            Duration timeout = value.get().chars().allMatch(Character::isDigit)
                    ? Duration.ofSeconds(Long.parseLong(value.get()))
                    : Duration.parse(value.get());
            if (!timeout.isNegative() && !timeout.isZero()) {
                return timeout;
            }
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            // reported below
        }
        throw new EsClusterException(START_TIMEOUT
                + "="
                + value.get()
                + " is not a positive duration: use seconds (300) or"
                + " ISO-8601 (PT5M)");
    }

    static Optional<Path> esDistribution() {
        return get(ES_DISTRIBUTION).map(Path::of);
    }

    static Optional<Path> pluginZip() {
        return get(PLUGIN_ZIP).map(Path::of);
    }

    static Path workDir() {
        return Path.of(get(WORK_DIR).orElse("target/esrel-testenv"))
                .toAbsolutePath()
                .normalize();
    }

    static Optional<Path> javaHome() {
        return get(JAVA_HOME).map(Path::of);
    }

    static String user() {
        return get(USER).orElse("esrel");
    }

    static List<String> urls() {
        return get(URL).map(v -> Arrays.stream(v.split(","))
                        .map(String::trim)
                        .filter(s -> !s.isEmpty())
                        .toList())
                .orElse(List.of());
    }

    static Optional<String> username() {
        return get(USERNAME);
    }

    static Optional<String> password() {
        return get(PASSWORD);
    }

    static Optional<String> apiKey() {
        return get(API_KEY);
    }

    static Optional<String> caFile() {
        return get(CA_FILE);
    }

    static Optional<String> caFingerprint() {
        return get(CA_FINGERPRINT);
    }

    /** Blank counts as unset: Maven passes an undefined property as an empty string. */
    private static Optional<String> get(String name) {
        return Optional.ofNullable(System.getProperty(name)).map(String::trim).filter(s -> !s.isEmpty());
    }
}
