package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.testcontainers.utility.DockerImageName;

/**
 * {@code auto} takes Docker only where it can get the image: with a daemon answering, an image that is neither here nor
 * pullable (the official one, where no registry answers) leaves the cluster to the local backend, and the reason says
 * so; an image that is here (the build's {@code esrel.testenv.image}) gets Docker. Nothing is started.
 */
@Tag("docker")
class AutoBackendIT {

    private final String backend = System.getProperty(TestenvProperties.BACKEND);
    private final String image = System.getProperty(TestenvProperties.IMAGE);

    @AfterEach
    void restore() {
        set(TestenvProperties.BACKEND, backend);
        set(TestenvProperties.IMAGE, image);
    }

    @Test
    void shouldLeaveAClusterToTheLocalBackendWhenTheImageCannotBeHad() {
        assertThat(DockerImages.dockerAvailable()).isTrue();
        DockerImageName missing = DockerImageName.parse("esrel/no-such-image:" + TestenvProperties.esVersion());
        assertThat(DockerImages.whyNotObtainable(missing))
                .hasValueSatisfying(why -> assertThat(why).contains("is not here and cannot be pulled"));

        set(TestenvProperties.BACKEND, "auto");
        set(TestenvProperties.IMAGE, "esrel/no-such-image");
        try (ClusterBackend chosen = Backends.create(spec())) {
            assertThat(chosen).isInstanceOf(LocalBackend.class);
        }
    }

    @Test
    void shouldTakeDockerWhenTheImageIsHere() {
        DockerImageName here = DockerImagesForTests.base();
        assertThat(DockerImages.whyNotObtainable(here)).isEqualTo(Optional.empty());

        set(TestenvProperties.BACKEND, "auto");
        try (ClusterBackend chosen = Backends.create(spec())) {
            assertThat(chosen).isInstanceOf(DockerBackend.class);
        }
    }

    private static ClusterSpec spec() {
        return new ClusterSpec(
                1,
                false,
                "512m",
                java.util.Map.of(),
                TestenvProperties.startTimeout(),
                TestenvProperties.esVersion(),
                false,
                false,
                null,
                false);
    }

    private static void set(String name, String value) {
        if (value == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, value);
        }
    }
}
