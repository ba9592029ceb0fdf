package io.github.esrel.testenv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the Elasticsearch distribution zip and the esrel plugin zip. The build passes both as
 * system properties; an IDE run does not, so each has a fallback that works from a checkout.
 */
final class Artifacts {

    private static final Logger LOG = LoggerFactory.getLogger(Artifacts.class);
    private static final String DISTRIBUTION_GROUP = "org.elasticsearch.distribution.integ-test-zip";

    private Artifacts() {}

    /**
     * The integ-test-zip for {@code version}: {@code esrel.es.distribution} if it is that version,
     * else the local Maven repository, downloading it there with {@code mvn dependency:get} if
     * missing.
     */
    static Path distribution(String version) {
        String fileName = "elasticsearch-" + version + ".zip";
        Optional<Path> configured = TestenvProperties.esDistribution();
        if (configured.isPresent() && configured.get().getFileName().toString().equals(fileName)) {
            if (Files.isRegularFile(configured.get())) {
                return configured.get();
            }
            LOG.warn(
                    "{}={} does not exist; looking in the local Maven repository",
                    TestenvProperties.ES_DISTRIBUTION,
                    configured.get());
        }
        Path repository = mavenRepository();
        Path inRepository = repository
                .resolve(DISTRIBUTION_GROUP.replace('.', '/'))
                .resolve("elasticsearch")
                .resolve(version)
                .resolve(fileName);
        if (!Files.isRegularFile(inRepository)) {
            download(version, repository, inRepository);
        }
        return inRepository;
    }

    /**
     * The esrel plugin zip built for {@code version}: {@code esrel.plugin.zip} if it exists and is
     * for that version, else the newest {@code es-plugin/target/esrel-plugin-*-es<version>.zip} in
     * the working directory or above it.
     */
    static Path pluginZip(String version) {
        return pluginZip(version, TestenvProperties.pluginZip(), Path.of("").toAbsolutePath());
    }

    static Path pluginZip(String version, Optional<Path> configured, Path start) {
        String suffix = "-es" + version + ".zip";
        if (configured.isPresent()
                && Files.isRegularFile(configured.get())
                && configured.get().getFileName().toString().endsWith(suffix)) {
            return configured.get();
        }
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Optional<Path> built = newestPluginZip(dir.resolve("es-plugin/target"), suffix);
            if (built.isPresent()) {
                return built.get();
            }
        }
        throw new EsClusterException("esrel plugin zip for Elasticsearch "
                + version
                + " not found: "
                + TestenvProperties.PLUGIN_ZIP
                + " is "
                + configured
                        .map(p -> p + (Files.exists(p) ? " (another version)" : " (missing)"))
                        .orElse("not set")
                + ", and no es-plugin/target/esrel-plugin-*"
                + suffix
                + " exists in "
                + start
                + " or above. Build it with: mvn -pl es-plugin package -Delasticsearch.version="
                + version
                + " -- or use EsCluster.builder().plugin(false)");
    }

    private static Optional<Path> newestPluginZip(Path target, String suffix) {
        if (!Files.isDirectory(target)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(f -> f.getFileName().toString().startsWith("esrel-plugin-"))
                    .filter(f -> f.getFileName().toString().endsWith(suffix))
                    .max(Comparator.comparing(f -> f.toFile().lastModified()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Path mavenRepository() {
        return Optional.ofNullable(System.getProperty("maven.repo.local"))
                .map(Path::of)
                .orElse(Path.of(System.getProperty("user.home"), ".m2", "repository"));
    }

    private static void download(String version, Path repository, Path expected) {
        String artifact = DISTRIBUTION_GROUP + ":elasticsearch:" + version + ":zip";
        List<String> command = List.of(
                "mvn",
                "-q",
                "-B",
                "dependency:get",
                "-Dtransitive=false",
                "-Dmaven.repo.local=" + repository,
                "-Dartifact=" + artifact);
        LOG.info(
                "Elasticsearch {} is not in {}; running: {}", version, expected.getParent(), String.join(" ", command));
        Commands.Result result;
        try {
            result = Commands.run(command, Map.of(), null, Duration.ofMinutes(10));
        } catch (EsClusterException e) {
            throw new EsClusterException(
                    "cannot download Elasticsearch "
                            + version
                            + " ("
                            + e.getMessage()
                            + "); run "
                            + String.join(" ", command)
                            + " yourself or set -D"
                            + TestenvProperties.ES_DISTRIBUTION
                            + "=/path/to/elasticsearch-"
                            + version
                            + ".zip",
                    e);
        }
        if (!result.ok() || !Files.isRegularFile(expected)) {
            throw new EsClusterException("cannot download Elasticsearch "
                    + version
                    + ": "
                    + String.join(" ", command)
                    + " exited "
                    + result.exitCode()
                    + " without producing "
                    + expected
                    + ":\n"
                    + LogTail.lastLines(result.output(), 20)
                    + "\nCheck the version exists on Maven Central, or set -D"
                    + TestenvProperties.ES_DISTRIBUTION
                    + "=/path/to/elasticsearch-"
                    + version
                    + ".zip");
        }
    }
}
