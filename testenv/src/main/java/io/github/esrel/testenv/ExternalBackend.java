package io.github.esrel.testenv;

import co.elastic.clients.transport.TransportUtils;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster someone else runs, named by {@code esrel.testenv.url} (comma-separated URLs), with
 * optional basic ({@code esrel.testenv.username}/{@code esrel.testenv.password}) or API key ({@code
 * esrel.testenv.api-key}) authentication. Only used when asked for: testenv never probes
 * localhost:9200 on its own. It is checked, never started, stopped or wiped.
 */
final class ExternalBackend implements ClusterBackend {

    private static final Logger LOG = LoggerFactory.getLogger(ExternalBackend.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final ClusterSpec spec;
    // Set by start(), which EsCluster calls before anything else (NullAway.Init: not in the constructor).
    @SuppressWarnings("NullAway.Init")
    private List<URI> uris;

    // Set by start(), which EsCluster calls before anything else (NullAway.Init: not in the constructor).
    @SuppressWarnings("NullAway.Init")
    private Map<String, String> headers;

    // Set by start(), which EsCluster calls before anything else (NullAway.Init: not in the constructor).
    @SuppressWarnings("NullAway.Init")
    private Optional<SSLContext> sslContext;

    // Set by start(), which EsCluster calls before anything else (NullAway.Init: not in the constructor).
    @SuppressWarnings("NullAway.Init")
    private String version;

    private int size;
    private boolean pluginInstalled;

    ExternalBackend(ClusterSpec spec) {
        this.spec = spec;
    }

    @Override
    public String name() {
        return "external";
    }

    @Override
    public void start() {
        List<String> urls = TestenvProperties.urls();
        if (urls.isEmpty()) {
            throw new EsClusterException("-D"
                    + TestenvProperties.BACKEND
                    + "=external needs -D"
                    + TestenvProperties.URL
                    + "=http://host:9200[,http://host2:9200]");
        }
        uris = urls.stream().map(URI::create).toList();
        headers = authHeaders();
        sslContext = trust();
        EsHttp http = new EsHttp(headers, sslContext);
        JsonNode health = get(http, "/_cluster/health");
        size = health.path("number_of_nodes").asInt();
        version = get(http, "/_nodes?filter_path=nodes.*.version")
                .path("nodes")
                .elements()
                .next()
                .path("version")
                .asText();
        Set<String> nodesWithPlugin = new HashSet<>();
        for (JsonNode plugin : get(http, "/_cat/plugins?format=json")) {
            if (plugin.path("component").asText().equals("esrel")) {
                nodesWithPlugin.add(plugin.path("name").asText());
            }
        }
        pluginInstalled = nodesWithPlugin.size() == size;
        if (spec.plugin() && !pluginInstalled) {
            throw new EsClusterException("the external cluster at "
                    + uris
                    + " has the esrel plugin on "
                    + nodesWithPlugin.size()
                    + " of its "
                    + size
                    + " nodes; install the plugin built for Elasticsearch "
                    + version
                    + " on every node (bin/elasticsearch-plugin install file:///.../esrel-plugin-*-es"
                    + version
                    + ".zip) or use EsCluster.builder().plugin(false)");
        }
        if (spec.nodes() != size) {
            LOG.warn("{} nodes were asked for; the external cluster at {} has {}", spec.nodes(), uris, size);
        }
        LOG.info("Using external Elasticsearch {} cluster at {} ({} nodes)", version, uris, size);
    }

    private JsonNode get(EsHttp http, String path) {
        String failures = "";
        for (URI uri : uris) {
            try {
                EsHttp.Response response = http.get(uri, path, TIMEOUT);
                if (response.ok()) {
                    return response.body();
                }
                String hint = response.status() == 401 || response.status() == 403
                        ? " (set -D"
                                + TestenvProperties.USERNAME
                                + "/-D"
                                + TestenvProperties.PASSWORD
                                + " or -D"
                                + TestenvProperties.API_KEY
                                + ")"
                        : "";
                failures += "\n  " + uri + path + " answered " + response.status() + hint + ": " + response.body();
            } catch (IOException e) {
                failures += "\n  " + uri + path + ": " + e;
            }
        }
        throw new EsClusterException("the external cluster does not answer as expected:" + failures);
    }

    private static Map<String, String> authHeaders() {
        Optional<String> apiKey = TestenvProperties.apiKey();
        if (apiKey.isPresent()) {
            return Map.of("Authorization", "ApiKey " + apiKey.get());
        }
        Optional<String> username = TestenvProperties.username();
        if (username.isEmpty()) {
            return Map.of();
        }
        String password = TestenvProperties.password()
                .orElseThrow(() -> new EsClusterException(
                        "-D" + TestenvProperties.USERNAME + " is set but -D" + TestenvProperties.PASSWORD + " is not"));
        String credentials = username.get() + ":" + password;
        return Map.of(
                "Authorization",
                "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public List<URI> httpUris() {
        return uris;
    }

    @Override
    public Map<String, String> headers() {
        return headers;
    }

    @Override
    public Optional<SSLContext> sslContext() {
        return sslContext;
    }

    /**
     * Trust in the cluster's HTTPS certificate when it comes from a private CA: its PEM file, or the
     * SHA-256 fingerprint of the CA certificate (what Elasticsearch prints at first start). Without
     * either, the JVM's default trust store decides (Elastic Cloud, a public CA).
     */
    private static Optional<SSLContext> trust() {
        Optional<String> caFile = TestenvProperties.caFile();
        Optional<String> fingerprint = TestenvProperties.caFingerprint();
        if (caFile.isPresent() && fingerprint.isPresent()) {
            throw new EsClusterException(
                    "set -D" + TestenvProperties.CA_FILE + " or -D" + TestenvProperties.CA_FINGERPRINT + ", not both");
        }
        if (caFile.isPresent()) {
            return Optional.of(Tls.trusting(Path.of(caFile.get())));
        }
        return fingerprint.map(TransportUtils::sslContextFromCaFingerprint);
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean pluginInstalled() {
        return pluginInstalled;
    }

    /** Leaves the cluster as it is: it is not ours. */
    @Override
    public void close() {}
}
