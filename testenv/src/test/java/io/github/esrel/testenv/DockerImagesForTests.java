package io.github.esrel.testenv;

import org.testcontainers.utility.DockerImageName;

/** The images the docker ITs run: the build's {@code esrel.testenv.image} (here, the stand-in) of the build's version. */
final class DockerImagesForTests {

    private DockerImagesForTests() {}

    /** {@code esrel.testenv.image} (default: the official image) of {@code esrel.es.version}. */
    static DockerImageName base() {
        return DockerImages.baseImage(TestenvProperties.esVersion());
    }

    /**
     * The image whose contract {@link StandinContractIT} checks: {@code esrel.testenv.contract.image} if set (the
     * official image, say, where one can be pulled), else {@link #base()}.
     */
    static DockerImageName contract() {
        String configured =
                System.getProperty("esrel.testenv.contract.image", "").trim();
        return configured.isEmpty()
                ? base()
                : DockerImageName.parse(configured)
                        .asCompatibleSubstituteFor(EsrelElasticsearchContainer.OFFICIAL_IMAGE);
    }
}
