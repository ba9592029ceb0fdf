package io.github.esrel.testenv;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the Elasticsearch distribution zip and the esrel plugin zip. Both are Maven artifacts: the build passes them
 * as system properties, and anything else (an IDE run, a project outside esrel's checkout) finds them in the local
 * Maven repository, fetching them there if missing.
 */
final class Artifacts {

    private static final Logger LOG = LoggerFactory.getLogger(Artifacts.class);
    private static final String DISTRIBUTION_GROUP = "org.elasticsearch.distribution.integ-test-zip";
    private static final String PLUGIN_GROUP = "io.github.esrel";
    private static final String PLUGIN_ARTIFACT = "esrel-plugin";

    private Artifacts() {}

    /**
     * The integ-test-zip for {@code version}: {@code esrel.es.distribution} if it is that version, else the local
     * Maven repository, fetching it there with {@code mvn dependency:get} if missing.
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
        return MavenRepository.local()
                .fetch(
                        new MavenRepository.Coordinates(DISTRIBUTION_GROUP, "elasticsearch", version, "zip", null),
                        "check the version exists on Maven Central, or set -D" + TestenvProperties.ES_DISTRIBUTION
                                + "=/path/to/elasticsearch-" + version + ".zip");
    }

    /**
     * The esrel plugin zip built for Elasticsearch {@code version}, of the esrel version testenv belongs to: {@code
     * esrel.plugin.zip} if it exists and is for that version; else, inside esrel's own checkout, the newest {@code
     * es-plugin/target/esrel-plugin-*-es<version>.zip} in the working directory or above; else the Maven artifact
     * {@code io.github.esrel:esrel-plugin:<esrel version>:zip:es<version>} from the local repository, fetched there
     * if missing.
     */
    static Path pluginZip(String version) {
        return pluginZip(
                version,
                TestenvProperties.pluginZip(),
                Path.of("").toAbsolutePath(),
                MavenRepository.local(),
                esrelVersion());
    }

    static Path pluginZip(
            String version, Optional<Path> configured, Path start, MavenRepository repository, String esrelVersion) {
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
        MavenRepository.Coordinates artifact = pluginArtifact(version, esrelVersion);
        String fix =
                "install it (in esrel's checkout: mvn -pl es-plugin -am install -DskipTests -Delasticsearch.version="
                        + version
                        + "), set -D"
                        + TestenvProperties.PLUGIN_ZIP
                        + "=/path/to/esrel-plugin-"
                        + esrelVersion
                        + suffix
                        + ", or use EsCluster.builder().plugin(false). Looked for "
                        + TestenvProperties.PLUGIN_ZIP
                        + " ("
                        + configured
                                .map(p -> p + (Files.exists(p) ? ", another version" : ", missing"))
                                .orElse("not set")
                        + "), es-plugin/target/esrel-plugin-*"
                        + suffix
                        + " in "
                        + start
                        + " or above, and "
                        + repository.path(artifact);
        return repository.fetch(artifact, fix);
    }

    static MavenRepository.Coordinates pluginArtifact(String version, String esrelVersion) {
        return new MavenRepository.Coordinates(PLUGIN_GROUP, PLUGIN_ARTIFACT, esrelVersion, "zip", "es" + version);
    }

    /** The esrel version this testenv is part of (its own artifact's version). */
    static String esrelVersion() {
        try (InputStream in = Artifacts.class.getResourceAsStream("esrel-testenv.properties")) {
            if (in == null) {
                throw new EsClusterException("esrel-testenv.properties is missing from testenv's jar");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
}
