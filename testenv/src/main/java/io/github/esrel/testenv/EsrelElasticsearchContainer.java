package io.github.esrel.testenv;

import static java.util.Objects.requireNonNull;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Testcontainers' {@link ElasticsearchContainer} with the esrel plugin installed: it <em>is</em> one, so Spring
 * Boot's {@code @ServiceConnection} and every tool that takes an {@code ElasticsearchContainer} keep working, and
 * everything Testcontainers documents for it applies (security on from 8.0 with the password {@code changeme}, the
 * CA certificate copied out, {@code getHttpHostAddress()}, {@code createSslContextFromCa()}).
 *
 * <p>The plugin is installed into a base image (the official one by default; a mirror, or your own production
 * image with its other plugins) by a derived image built on first start: {@code FROM <base>}, then {@code
 * elasticsearch-plugin install} of the plugin zip. The zip is the Maven artifact {@code
 * io.github.esrel:esrel-plugin:<esrel version>:zip:es<Elasticsearch version>} of the esrel version on the class
 * path, taken from the local Maven repository (fetched there if missing); the Elasticsearch version is the base
 * image's tag. The derived image is kept (tagged {@code esrel/elasticsearch-esrel:<version>-<hash>}), so that Docker
 * reuses it for an unchanged base and plugin.
 *
 * <p>Started means ready: after Testcontainers' own wait (the node's {@code started} log line), {@link #start()}
 * also waits, within the startup timeout, until the node answers {@code GET _cluster/health?wait_for_status=yellow}
 * (as {@code elastic} with the container's password, over HTTPS trusting its CA when security is on). The log line
 * alone does not say the node can serve requests: Elasticsearch logs it at the end of its start even when it found
 * no master within {@code discovery.initial_state_timeout} (30 s, as on a starved machine: it logs a warning and
 * starts anyway), and before it has recovered its cluster state; until then every request that needs the master
 * ({@code _cat/plugins}, creating an index, ...) waits up to its master timeout and fails with 503. (The plugins are
 * not what is missing: a node loads them while it is built, before it starts.) Where the container's credentials
 * cannot be told (security on without {@code ELASTIC_PASSWORD}, or TLS without the CA this class copies out), the
 * log line is all it waits for, as Testcontainers does.
 *
 * <p>Works with Testcontainers 1.21 ({@code org.testcontainers:elasticsearch}, Spring Boot 3.5) and 2.0 ({@code
 * org.testcontainers:testcontainers-elasticsearch}, Spring Boot 4), whichever the test class path has.
 *
 * <pre>{@code
 * @Container
 * @ServiceConnection
 * static ElasticsearchContainer es = new EsrelElasticsearchContainer("9.5.3")
 *         .withEnv("xpack.security.enabled", "false");
 * }</pre>
 */
public class EsrelElasticsearchContainer extends ElasticsearchContainer {

    /** The official image, {@code docker.elastic.co/elasticsearch/elasticsearch}, without a tag. */
    public static final DockerImageName OFFICIAL_IMAGE =
            DockerImageName.parse("docker.elastic.co/elasticsearch/elasticsearch");

    /** How long {@link #createClient()}'s client may take to connect, the TLS handshake included. */
    private static final Duration PATIENT_CONNECT = Duration.ofSeconds(30);

    private final DockerImageName baseImage;
    private final Path pluginZip;
    /** How long {@link #start()} waits in all, for the log line and then for the cluster health. */
    private Duration startupTimeout = Duration.ofMinutes(2);

    /**
     * The official image of {@code version} with the plugin.
     *
     * @param version the Elasticsearch version, such as {@code 9.5.3}
     * @throws EsClusterException if the plugin zip for that version is neither in the local Maven repository nor
     *     fetchable
     */
    public EsrelElasticsearchContainer(String version) {
        this(OFFICIAL_IMAGE.withTag(requireNonNull(version, "version cannot be null")));
    }

    /**
     * {@code baseImage} with the plugin built for the version of its tag. An image under another name must be
     * declared a substitute: {@code DockerImageName.parse("mirror.example/es:9.5.3")
     * .asCompatibleSubstituteFor("docker.elastic.co/elasticsearch/elasticsearch")}.
     *
     * @param baseImage the image to install the plugin into; its tag is the Elasticsearch version
     * @throws EsClusterException if the plugin zip for that version is neither in the local Maven repository nor
     *     fetchable
     * @throws IllegalArgumentException if the tag is not a version, or the image is not compatible with the official
     *     one
     */
    public EsrelElasticsearchContainer(DockerImageName baseImage) {
        this(baseImage, Artifacts.pluginZip(PluginImage.version(baseImage)));
    }

    /**
     * {@code baseImage} with the given plugin zip (built for the image's Elasticsearch version).
     *
     * @param baseImage the image to install the plugin into
     * @param pluginZip the esrel plugin zip, {@code esrel-plugin-<esrel version>-es<version>.zip}
     * @throws IllegalArgumentException if the image is not compatible with the official one
     */
    // Configuring the container from its constructor is how Testcontainers' own containers are written; setImage only
    // records the image to build.
    @SuppressWarnings("this-escape")
    public EsrelElasticsearchContainer(DockerImageName baseImage, Path pluginZip) {
        super(baseImage);
        this.baseImage = baseImage;
        this.pluginZip = requireNonNull(pluginZip, "pluginZip cannot be null");
        // The version Testcontainers derives its defaults from (security, the CA) was read from the base's tag above;
        // the container runs the derived image, built when it starts.
        setImage(PluginImage.build(baseImage, pluginZip));
        // What a run made can be found and removed by this label, whoever started the container.
        withLabel(PluginImage.LABEL, "container");
    }

    /**
     * How long {@link #start()} waits for the node: for its {@code started} log line, and then as long again at most
     * for its cluster health (see the class comment). Default 2 minutes.
     *
     * @param startupTimeout the longest wait
     * @return this container
     */
    @Override
    public ElasticsearchContainer withStartupTimeout(Duration startupTimeout) {
        this.startupTimeout = requireNonNull(startupTimeout, "startupTimeout cannot be null");
        return super.withStartupTimeout(startupTimeout);
    }

    /** Testcontainers' wait (the log line), then the cluster health: see the class comment for why. */
    @Override
    protected void waitUntilContainerStarted() {
        super.waitUntilContainerStarted();
        Map<String, String> env = getEnvMap();
        String password = env.get("ELASTIC_PASSWORD");
        boolean secured = !"false".equals(env.get("xpack.security.enabled"));
        Optional<byte[]> ca = secured ? caCertAsBytes() : Optional.empty();
        boolean tls = secured && !"false".equals(env.get("xpack.security.http.ssl.enabled"));
        if (secured && (password == null || tls && ca.isEmpty())) {
            return; // no way to ask it: the log line is all there is to wait for
        }
        EsHttp http = new EsHttp(
                password == null ? Map.of() : Map.of("Authorization", SecurityFiles.basicAuth("elastic", password)),
                tls ? Optional.of(createSslContextFromCa()) : Optional.empty());
        URI node = URI.create((tls ? "https://" : "http://") + getHttpHostAddress());
        Optional<String> notReady = ClusterHealth.await(http, List.of(node), "yellow", 0, startupTimeout, () -> {
            if (!isRunning()) {
                throw new ContainerLaunchException(
                        "the Elasticsearch container stopped while waiting for its cluster health; see its log");
            }
        });
        if (notReady.isPresent()) {
            throw new ContainerLaunchException("Elasticsearch logged that it started but does not serve requests: "
                    + notReady.get() + "; see the container's log");
        }
    }

    /**
     * The image the plugin is installed into.
     *
     * @return the base image name
     */
    public DockerImageName baseImage() {
        return baseImage;
    }

    /**
     * The plugin zip installed.
     *
     * @return the zip's path
     */
    public Path pluginZip() {
        return pluginZip;
    }

    /**
     * A client for this running container, as a test needs one: over HTTPS with the CA Testcontainers copied out of
     * the container and the {@code elastic} user when security is on (Testcontainers' default for 8.0 and later), over
     * plain HTTP without ({@link #withoutSecurity()}). It connects within 30 s and waits 30 s for an answer: the
     * low-level clients connect within 1 s by default, and that bound includes the TLS handshake, which a container's
     * node on a busy machine can take longer for ({@code SocketTimeoutException: 1000 MILLISECONDS}). On
     * elasticsearch-java 9.x the client sits on {@code Rest5ClientTransport}, on 8.x on {@code RestClientTransport},
     * as the clients of testenv's clusters do.
     *
     * @return a new client; close its transport ({@code client._transport().close()}) when done
     * @throws IllegalStateException if the container is not running
     */
    public ElasticsearchClient createClient() {
        if (!isRunning()) {
            throw new IllegalStateException("the container is not running: start it before asking for a client");
        }
        if (caCertAsBytes().isEmpty()) {
            return Clients.apiClient(
                            List.of(URI.create("http://" + getHttpHostAddress())),
                            Map.of(),
                            Optional.empty(),
                            Optional.of(PATIENT_CONNECT))
                    .client();
        }
        String password = getEnvMap().getOrDefault("ELASTIC_PASSWORD", ELASTICSEARCH_DEFAULT_PASSWORD);
        return Clients.apiClient(
                        List.of(URI.create("https://" + getHttpHostAddress())),
                        Map.of("Authorization", SecurityFiles.basicAuth("elastic", password)),
                        Optional.of(createSslContextFromCa()),
                        Optional.of(PATIENT_CONNECT))
                .client();
    }

    /**
     * Turns Elasticsearch security off (as Spring Boot's own tests run 9.x): plain HTTP, no password, and no CA
     * certificate to copy out after the start.
     *
     * @return this container
     */
    public EsrelElasticsearchContainer withoutSecurity() {
        withEnv("xpack.security.enabled", "false");
        getEnvMap().remove("ELASTIC_PASSWORD");
        withCertPath("");
        return this;
    }
}
