package io.github.esrel.testenv;

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
            if (spec.nodes() > 1) {
                chosen = "local";
                reason = "auto; the docker backend runs single-node clusters only";
            } else if (DockerBackend.dockerAvailable()) {
                chosen = "docker";
                reason = "auto; Testcontainers found Docker";
            } else {
                chosen = "local";
                reason = "auto; no Docker found";
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
