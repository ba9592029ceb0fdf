package io.github.esrel.testenv;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.DockerImageName;

/** The derived image of {@link EsrelElasticsearchContainer}: a base image with the esrel plugin installed. */
final class PluginImage {

    /** Every image and container testenv makes carries it, so that a run can remove what it made. */
    static final String LABEL = "io.github.esrel.testenv";

    private static final Pattern VERSION = Pattern.compile("[0-9]+\\.[0-9]+\\.[0-9]+(-[A-Za-z0-9.]+)?");

    private PluginImage() {}

    /** The Elasticsearch version of {@code image}: its tag. */
    static String version(DockerImageName image) {
        String tag = image.getVersionPart();
        if (!VERSION.matcher(tag).matches()) {
            throw new IllegalArgumentException("the tag of "
                    + image.asCanonicalNameString()
                    + " is not an Elasticsearch version (such as 9.5.3): name the plugin zip for it with"
                    + " new EsrelElasticsearchContainer(image, pluginZip)");
        }
        return tag;
    }

    /**
     * A lazily built image {@code FROM base} with {@code pluginZip} installed (an esrel plugin the base already has is
     * replaced), kept under a tag derived from both, so that an unchanged pair is built once.
     */
    static ImageFromDockerfile build(DockerImageName base, Path pluginZip) {
        String baseName = base.asCanonicalNameString();
        String tag = "esrel/elasticsearch-esrel:" + base.getVersionPart().toLowerCase() + "-"
                + hash(baseName + "\n" + DistributionCache.sha256(pluginZip));
        String dockerfile = "FROM " + baseName + "\n"
                + "LABEL " + LABEL + "=plugin-image\n"
                + "COPY --chown=1000:0 esrel-plugin.zip /tmp/esrel-plugin.zip\n"
                + "RUN if bin/elasticsearch-plugin list | grep -qx esrel; then bin/elasticsearch-plugin remove esrel; fi"
                + " && bin/elasticsearch-plugin install --batch file:///tmp/esrel-plugin.zip"
                + " && rm /tmp/esrel-plugin.zip\n";
        return new ImageFromDockerfile(tag, false)
                .withFileFromPath("esrel-plugin.zip", pluginZip)
                .withFileFromString("Dockerfile", dockerfile);
    }

    private static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
