package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code esrel-testenv} in a project outside esrel's checkout, as a new user writes it from the README: the
 * dependencies of "Use esrel in your application" ({@code esrel-bom}, {@code esrel-client}, {@code esrel-testenv}) and
 * the {@code @EsrelTest} class of "Testcontainers, JUnit 5 and Spring Boot's {@code @ServiceConnection}", both taken
 * from README.md as they are (the version set to this build's, the class given its imports), plus JUnit 5, Failsafe
 * and, for the docker backend, Testcontainers. {@code mvn verify} runs on it offline, with this build's local Maven
 * repository, where the plugin zip is the installed {@code esrel-plugin} artifact (nothing points at the checkout):
 * once with the local backend, once with the docker backend (the image of {@code esrel.testenv.image}).
 */
@Tag("docker")
class OutsideProjectIT {

    private static final Path README = Path.of("../README.md");

    @TempDir
    static Path project;

    @BeforeAll
    static void writeProject() throws IOException {
        // JUnit makes the directory for its owner only: the node user could not reach the project's work directory,
        // and testenv would fall back to one under /tmp that outlives the test.
        Files.setPosixFilePermissions(project, PosixFilePermissions.fromString("rwxr-xr-x"));
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        String dependencies = block(readme, "**1. The dependency.**", "```xml\n")
                .replace("<version>0.1.0</version>", "<version>" + Artifacts.esrelVersion() + "</version>");
        String test = block(readme, "**Without Spring**", "```java\n");
        Files.writeString(project.resolve("pom.xml"), pom(dependencies), StandardCharsets.UTF_8);
        Path tests = Files.createDirectories(project.resolve("src/test/java/com/example"));
        Files.writeString(tests.resolve("TreeLocksIT.java"), IMPORTS + test, StandardCharsets.UTF_8);
    }

    @Test
    void shouldRunTheReadmesEsrelTestOnTheLocalBackend() throws IOException {
        assertThat(verify("local")).contains("esrel testenv: local backend");
    }

    @Test
    void shouldRunTheReadmesEsrelTestOnTheDockerBackend() throws IOException {
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
                "-Desrel.testenv.backend=" + backend,
                "-Desrel.es.version=" + TestenvProperties.esVersion()));
        TestenvProperties.image().ifPresent(image -> command.add("-Desrel.testenv.image=" + image));
        Commands.Result result = Commands.run(command, Map.of(), project, Duration.ofMinutes(15));
        Path output = project.resolve("target/failsafe-reports/com.example.TreeLocksIT-output.txt");
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

    /** The first fenced block opened by {@code fence} after {@code anchor}. */
    private static String block(String readme, String anchor, String fence) {
        int at = readme.indexOf(anchor);
        assertThat(at).as("README.md has %s", anchor).isNotNegative();
        int start = readme.indexOf(fence, at) + fence.length();
        return readme.substring(start, readme.indexOf("```", start));
    }

    private static final String IMPORTS = """
            package com.example;

            import static org.junit.jupiter.api.Assertions.assertEquals;
            import static org.junit.jupiter.api.Assertions.assertTrue;

            import co.elastic.clients.elasticsearch.ElasticsearchClient;
            import io.github.esrel.lock.LockMode;
            import io.github.esrel.lock.TreeLocks;
            import io.github.esrel.testenv.Cluster;
            import io.github.esrel.testenv.EsCluster;
            import io.github.esrel.testenv.EsrelTest;
            import java.io.IOException;
            import org.junit.jupiter.api.Test;

            """;

    /**
     * A minimal project around the README's dependencies: JUnit 5, Failsafe, Testcontainers for the docker backend, and
     * the plugin versions this build uses (the run is offline, so it uses only what the repository has).
     */
    private static String pom(String readmeDependencies) {
        Matcher management = Pattern.compile("(?s)<dependencyManagement>.*</dependencyManagement>")
                .matcher(readmeDependencies);
        Matcher dependencies = Pattern.compile("(?s)<dependencies>\\s*<dependency>.*</dependencies>\\s*$")
                .matcher(readmeDependencies.substring(readmeDependencies.indexOf("</dependencyManagement>")));
        assertThat(management.find()).isTrue();
        assertThat(dependencies.find()).isTrue();
        String extra = """
                  <dependency>
                    <groupId>org.junit.jupiter</groupId>
                    <artifactId>junit-jupiter</artifactId>
                    <version>5.14.4</version>
                    <scope>test</scope>
                  </dependency>
                  <dependency>
                    <groupId>org.testcontainers</groupId>
                    <artifactId>elasticsearch</artifactId>
                    <version>1.21.4</version>
                    <scope>test</scope>
                  </dependency>
                  <dependency>
                    <groupId>org.slf4j</groupId>
                    <artifactId>slf4j-simple</artifactId>
                    <version>2.0.17</version>
                    <scope>test</scope>
                  </dependency>
                </dependencies>""";
        String deps = dependencies.group().replaceFirst("</dependencies>\\s*$", extra);
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>com.example</groupId>
                  <artifactId>outside-esrel</artifactId>
                  <version>1.0</version>
                  <properties>
                    <maven.compiler.release>17</maven.compiler.release>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                  </properties>
                """ + management.group() + "\n" + deps + """

                  <build>
                    <plugins>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-resources-plugin</artifactId>
                        <version>3.3.1</version>
                      </plugin>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-compiler-plugin</artifactId>
                        <version>3.13.0</version>
                      </plugin>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-jar-plugin</artifactId>
                        <version>3.4.2</version>
                      </plugin>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-surefire-plugin</artifactId>
                        <version>3.5.4</version>
                      </plugin>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-failsafe-plugin</artifactId>
                        <version>3.5.4</version>
                        <configuration>
                          <redirectTestOutputToFile>true</redirectTestOutputToFile>
                        </configuration>
                        <executions>
                          <execution>
                            <goals>
                              <goal>integration-test</goal>
                              <goal>verify</goal>
                            </goals>
                          </execution>
                        </executions>
                      </plugin>
                    </plugins>
                  </build>
                </project>
                """;
    }
}
