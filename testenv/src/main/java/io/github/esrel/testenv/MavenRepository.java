package io.github.esrel.testenv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local Maven repository that the build running the tests uses, and artifacts in it: the Elasticsearch
 * distribution and the esrel plugin zip are ordinary Maven artifacts, found there and fetched there with {@code mvn
 * dependency:get} when missing, so that a project outside esrel's checkout gets them the way it gets its
 * dependencies.
 */
final class MavenRepository {

    private static final Logger LOG = LoggerFactory.getLogger(MavenRepository.class);
    private static final Pattern REPO_LOCAL = Pattern.compile("-Dmaven\\.repo\\.local=(\"[^\"]+\"|\\S+)");
    private static final Pattern LOCAL_REPOSITORY =
            Pattern.compile("<localRepository>\\s*([^<]+?)\\s*</localRepository>");

    /** An artifact: {@code group:artifact:version:type[:classifier]}. */
    record Coordinates(
            String group,
            String artifact,
            String version,
            String type,
            @Nullable String classifier) {

        String fileName() {
            return artifact + "-" + version + (classifier == null ? "" : "-" + classifier) + "." + type;
        }

        @Override
        public String toString() {
            return group + ":" + artifact + ":" + version + ":" + type + (classifier == null ? "" : ":" + classifier);
        }
    }

    private final Path root;

    /** Runs Maven; tests give one that runs nothing. */
    private final Function<List<String>, Commands.Result> maven;

    MavenRepository(Path root) {
        this(root, command -> Commands.run(command, Map.of(), null, Duration.ofMinutes(10)));
    }

    MavenRepository(Path root, Function<List<String>, Commands.Result> maven) {
        this.root = root;
        this.maven = maven;
    }

    /**
     * The repository the build uses. Surefire and Failsafe do not pass {@code maven.repo.local} to the test JVM, but
     * it inherits Maven's environment, so this looks, in order, at the system property {@code maven.repo.local},
     * {@code -Dmaven.repo.local=} in {@code MAVEN_CMD_LINE_ARGS} (the {@code mvn} command line and {@code
     * .mvn/maven.config}, which the {@code mvn} script exports) and {@code MAVEN_OPTS}, {@code <localRepository>} of
     * {@code ~/.m2/settings.xml}, then Maven's default {@code ~/.m2/repository}.
     */
    static MavenRepository local() {
        return new MavenRepository(
                locate(System::getProperty, System::getenv, Path.of(System.getProperty("user.home"))));
    }

    static Path locate(Function<String, String> properties, Function<String, String> environment, Path home) {
        Optional<Path> found = Optional.ofNullable(properties.apply("maven.repo.local"))
                .filter(s -> !s.isBlank())
                .map(Path::of);
        for (String variable : List.of("MAVEN_CMD_LINE_ARGS", "MAVEN_OPTS")) {
            if (found.isEmpty()) {
                found = Optional.ofNullable(environment.apply(variable))
                        .map(REPO_LOCAL::matcher)
                        .filter(Matcher::find)
                        .map(m -> Path.of(m.group(1).replace("\"", "")));
            }
        }
        if (found.isEmpty()) {
            found = settingsRepository(home.resolve(".m2/settings.xml"), home);
        }
        return found.orElse(home.resolve(".m2/repository")).toAbsolutePath().normalize();
    }

    private static Optional<Path> settingsRepository(Path settings, Path home) {
        if (!Files.isRegularFile(settings)) {
            return Optional.empty();
        }
        try {
            Matcher m = LOCAL_REPOSITORY.matcher(Files.readString(settings, StandardCharsets.UTF_8));
            return m.find()
                    ? Optional.of(Path.of(m.group(1).replace("${user.home}", home.toString())))
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    Path root() {
        return root;
    }

    /** Where {@code artifact} is or would be in this repository. */
    Path path(Coordinates artifact) {
        return root.resolve(artifact.group().replace('.', '/'))
                .resolve(artifact.artifact())
                .resolve(artifact.version())
                .resolve(artifact.fileName());
    }

    /** The artifact's file, fetched with {@code mvn dependency:get} if it is not here yet. */
    Path fetch(Coordinates artifact, String fix) {
        Path expected = path(artifact);
        if (Files.isRegularFile(expected)) {
            return expected;
        }
        List<String> command = List.of(
                "mvn",
                "-q",
                "-B",
                "dependency:get",
                "-Dtransitive=false",
                "-Dmaven.repo.local=" + root,
                "-Dartifact=" + artifact);
        LOG.info("{} is not in {}; running: {}", artifact, root, String.join(" ", command));
        Commands.Result result;
        try {
            result = maven.apply(command);
        } catch (EsClusterException e) {
            throw new EsClusterException(
                    "cannot fetch " + artifact + " (" + e.getMessage() + "); run " + String.join(" ", command)
                            + " yourself, or " + fix,
                    e);
        }
        if (!result.ok() || !Files.isRegularFile(expected)) {
            throw new EsClusterException(artifact
                    + " is not in the local Maven repository "
                    + root
                    + " and "
                    + String.join(" ", command)
                    + " exited "
                    + result.exitCode()
                    + " without producing "
                    + expected
                    + ":\n"
                    + LogTail.lastLines(result.output(), 20)
                    + "\nFix: "
                    + fix);
        }
        return expected;
    }
}
