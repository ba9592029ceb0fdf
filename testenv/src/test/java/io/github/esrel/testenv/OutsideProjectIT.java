package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's plain-Java quick start runs as written in a project outside esrel's checkout: {@code samples/quickstart}
 * (whose {@code pom.xml}, {@code Votes} and {@code VotesIT} the README shows, a test comparing each snippet with them)
 * copied to a directory of its own, and {@code mvn verify} run on it offline with this build's local Maven repository
 * and this build's esrel version ({@code -Desrel.version}), where the plugin zip is the installed {@code esrel-plugin}
 * artifact (nothing points at the checkout): once on testenv's local backend, once on its docker backend (the image of
 * {@code esrel.testenv.image}; the project's {@code docker} profile adds Testcontainers).
 */
@Tag("docker")
class OutsideProjectIT {

    private static final Path QUICKSTART = Path.of("../samples/quickstart");

    @TempDir
    static Path project;

    @BeforeAll
    static void copyProject() throws IOException {
        // JUnit makes the directory for its owner only: the node user could not reach the project's work directory,
        // and testenv would fall back to one under /tmp that outlives the test.
        Files.setPosixFilePermissions(project, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (Stream<Path> files = Files.walk(QUICKSTART)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path relative = QUICKSTART.relativize(f);
                if (relative.startsWith("target")) {
                    continue;
                }
                Path target = project.resolve(relative.toString());
                Files.createDirectories(target.getParent());
                Files.copy(f, target);
            }
        }
    }

    @Test
    void shouldRunTheReadmesQuickStartOnTheLocalBackend() throws IOException {
        assertThat(verify("local")).contains("esrel testenv: local backend");
    }

    @Test
    void shouldRunTheReadmesQuickStartOnTheDockerBackend() throws IOException {
        assertThat(verify("docker")).contains("esrel testenv: docker backend");
    }

    /** Runs {@code mvn verify} on the project with {@code backend}; returns the test's output. */
    private static String verify(String backend) throws IOException {
        Path repository = MavenRepository.local().root();
        List<String> command = new ArrayList<>(List.of(
                "mvn",
                "-B",
                "-o",
                "verify",
                "-Dmaven.repo.local=" + repository,
                "-Desrel.version=" + Artifacts.esrelVersion(),
                "-Desrel.testenv.backend=" + backend,
                "-Desrel.es.version=" + TestenvProperties.esVersion()));
        if (backend.equals("docker")) {
            command.add("-Pdocker");
        }
        TestenvProperties.image().ifPresent(image -> command.add("-Desrel.testenv.image=" + image));
        Commands.Result result = Commands.run(command, Map.of(), project, Duration.ofMinutes(15));
        Path output = project.resolve("target/failsafe-reports/com.example.VotesIT-output.txt");
        String testOutput = Files.exists(output) ? Files.readString(output) : "";
        assertThat(result.ok())
                .as(
                        "mvn verify (%s backend) in %s:%n%s%n%s",
                        backend, project, LogTail.lastLines(result.output(), 60), LogTail.lastLines(testOutput, 40))
                .isTrue();
        assertThat(result.output()).contains("Tests run: 1, Failures: 0, Errors: 0, Skipped: 0");
        // Found as a Maven artifact of this esrel version, not in a checkout.
        assertThat(testOutput)
                .contains("esrel-plugin-" + Artifacts.esrelVersion() + "-es" + TestenvProperties.esVersion() + ".zip");
        return testOutput;
    }
}
