package io.github.esrel.testenv;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;

/** Docker for the docker backend and for {@code auto}: is there a daemon, which image, can it be had. */
final class DockerImages {

    /** Whether each image could be had, asked once per JVM: a pull that fails can take seconds. */
    private static final ConcurrentHashMap<String, Optional<String>> OBTAINABLE = new ConcurrentHashMap<>();

    private DockerImages() {}

    /**
     * The image the nodes of {@code version} run: {@code esrel.testenv.image} (a repository, to which the version is
     * added as the tag, or a full name with its tag), by default the official image. Any name is taken as a
     * substitute for the official one.
     */
    static DockerImageName baseImage(String version) {
        String configured =
                TestenvProperties.image().orElse(EsrelElasticsearchContainer.OFFICIAL_IMAGE.getUnversionedPart());
        DockerImageName name = DockerImageName.parse(configured);
        if (!configured.substring(configured.lastIndexOf('/') + 1).contains(":")) {
            name = name.withTag(version);
        }
        return name.asCompatibleSubstituteFor(EsrelElasticsearchContainer.OFFICIAL_IMAGE);
    }

    /**
     * Whether Testcontainers can reach a Docker daemon; false if Testcontainers is missing. Asks Testcontainers only
     * when something points at Docker, because without Docker its probe logs an alarming error in every test run.
     */
    static boolean dockerAvailable() {
        if (!dockerConfigured()) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (LinkageError e) {
            return false;
        }
    }

    /**
     * Empty if {@code image} is present or could be pulled now, else why not. A pull of an image no registry serves
     * can hang until its connection times out: it is given 60 s.
     */
    static Optional<String> whyNotObtainable(DockerImageName image) {
        return OBTAINABLE.computeIfAbsent(image.asCanonicalNameString(), name -> {
            var docker = DockerClientFactory.instance().client();
            try {
                docker.inspectImageCmd(name).exec();
                return Optional.empty();
            } catch (RuntimeException absent) {
                // not here: try to pull it
            }
            try {
                boolean done = docker.pullImageCmd(image.getUnversionedPart())
                        .withTag(image.getVersionPart())
                        .start()
                        .awaitCompletion(60, TimeUnit.SECONDS);
                return done ? Optional.empty() : Optional.of(name + " is not here and its pull did not finish in 60 s");
            } catch (RuntimeException e) {
                return Optional.of(name + " is not here and cannot be pulled (" + e.getMessage() + ")");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.of("interrupted while pulling " + name);
            }
        });
    }

    /** The places Testcontainers looks for a Docker daemon (environment, sockets, its config). */
    private static boolean dockerConfigured() {
        if (System.getenv("DOCKER_HOST") != null || System.getenv("TESTCONTAINERS_HOST_OVERRIDE") != null) {
            return true;
        }
        Path home = Path.of(System.getProperty("user.home"));
        List<Path> places = new ArrayList<>(List.of(
                Path.of("/var/run/docker.sock"),
                home.resolve(".testcontainers.properties"),
                home.resolve(".docker/run/docker.sock"),
                home.resolve(".docker/desktop/docker.sock"),
                home.resolve(".colima/default/docker.sock"),
                home.resolve(".rd/docker.sock")));
        Optional.ofNullable(System.getenv("XDG_RUNTIME_DIR")).ifPresent(dir -> places.add(Path.of(dir, "docker.sock")));
        return places.stream().anyMatch(Files::exists);
    }
}
