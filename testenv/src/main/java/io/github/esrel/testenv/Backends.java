package io.github.esrel.testenv;

import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Chooses the backend for a cluster from {@code esrel.testenv.backend} and says why. */
final class Backends {

    private static final Logger LOG = LoggerFactory.getLogger(Backends.class);

    private Backends() {}

    static ClusterBackend create(ClusterSpec spec) {
        String configured = TestenvProperties.backend();
        String chosen = configured;
        String reason = "-D" + TestenvProperties.BACKEND + "=" + configured;
        if (configured.equals("auto")) {
            // Docker only where it can serve the cluster: a run the local backend could serve never fails because a
            // daemon happens to answer.
            if (!DockerBackend.dockerAvailable()) {
                chosen = "local";
                reason = "auto; no Docker found (or Testcontainers is not on the class path)";
            } else {
                Optional<String> missing = DockerImages.whyNotObtainable(DockerImages.baseImage(spec.version()));
                chosen = missing.isEmpty() ? "docker" : "local";
                reason = missing.map(why -> "auto; Docker answers, but " + why)
                        .orElse("auto; Docker answers and has the image");
            }
        }
        LOG.info("esrel testenv: {} backend for {} ({})", chosen, spec, reason);
        return switch (chosen) {
            case "docker" -> new DockerBackend(spec);
            case "external" -> new ExternalBackend(spec);
            default -> new LocalBackend(spec);
        };
    }
}
