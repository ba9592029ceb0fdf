package io.github.esrel.testenv;

import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Chooses the backend for a cluster from {@code esrel.testenv.backend} and says why. */
final class Backends {

    private static final Logger LOG = LoggerFactory.getLogger(Backends.class);

    private Backends() {}

    /**
     * Whether Testcontainers (an optional dependency) is on the class path. Checked by name before any class that
     * refers to its types is loaded: loading one without it fails with {@code NoClassDefFoundError}.
     */
    static boolean testcontainersPresent() {
        try {
            Class.forName("org.testcontainers.DockerClientFactory", false, Backends.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    static ClusterBackend create(ClusterSpec spec) {
        String configured = TestenvProperties.backend();
        String chosen = configured;
        String reason = "-D" + TestenvProperties.BACKEND + "=" + configured;
        if (configured.equals("auto")) {
            // Docker only where it can serve the cluster: a run the local backend could serve never fails because a
            // daemon happens to answer.
            if (!testcontainersPresent()) {
                chosen = "local";
                reason = "auto; Testcontainers is not on the class path";
            } else if (!DockerBackend.dockerAvailable()) {
                chosen = "local";
                reason = "auto; no Docker found";
            } else {
                Optional<String> missing = DockerImages.whyNotObtainable(DockerImages.baseImage(spec.version()));
                chosen = missing.isEmpty() ? "docker" : "local";
                reason = missing.map(why -> "auto; Docker answers, but " + why)
                        .orElse("auto; Docker answers and has the image");
            }
        }
        LOG.info("esrel testenv: {} backend for {} ({})", chosen, spec, reason);
        if (chosen.equals("docker") && !testcontainersPresent()) {
            throw new EsClusterException("the docker backend needs Testcontainers on the test class path"
                    + " (org.testcontainers:elasticsearch 1.21, or org.testcontainers:testcontainers-elasticsearch 2.0);"
                    + " add it, or use -D" + TestenvProperties.BACKEND + "=local (or auto)");
        }
        return switch (chosen) {
            case "docker" -> new DockerBackend(spec);
            case "external" -> new ExternalBackend(spec);
            default -> new LocalBackend(spec);
        };
    }
}
