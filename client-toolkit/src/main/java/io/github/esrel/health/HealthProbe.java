package io.github.esrel.health;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.internal.Checks;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.Plugins;
import io.github.esrel.internal.RestCall;
import io.github.esrel.lock.DocumentTreeLocks;
import io.github.esrel.lock.TreeLocks;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Checks esrel on a cluster, in bounded time: the esrel plugin on every node ({@code GET _nodes/plugins}) and, given
 * the application's {@link TreeLocks}, which provider serves them and the health of their lock index
 * ({@code GET _cluster/health/<lock index>*}). The Spring Boot starters' {@code esrel} health contributor is this
 * check; an operator's tool or another framework can run it the same way.
 *
 * <pre>{@code
 * HealthReport report = HealthProbe.of(b -> b.client(es).treeLocks(locks)).check();
 * if (!report.up()) alert(report.details());   // {plugin={nodes=3, withPlugin=2, ...}, locks={provider=PLUGIN, ...}}
 * }</pre>
 *
 * <p><b>Verdict.</b> DOWN when the cluster does not answer within the {@linkplain Builder#timeout timeout} or refuses
 * the requests, when the tree locks use the plugin and a node lacks it (a lock request that node serves would fail),
 * or when the lock index is red. Everything else is UP, with details: a cluster without the plugin serves locks from
 * lock documents and routing from cluster state, so a missing plugin alone is no failure, and a lock index not created
 * yet is created by the first lock.
 *
 * <p>Privileges: {@code monitor} (node info and cluster health). Immutable and thread-safe; each {@link #check()}
 * asks the cluster afresh.
 */
public final class HealthProbe {

    /** The default bound of one check. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /** The prefix of the plugin's lock index ({@code .esrel-treelocks-1}), created on the first lock. */
    static final String PLUGIN_LOCK_INDEX_PREFIX = ".esrel-treelocks-";

    private final ElasticsearchClient client;
    private final @Nullable TreeLocks locks;
    private final Duration timeout;

    private HealthProbe(Builder b) {
        this.client = Objects.requireNonNull(b.client, "client cannot be null");
        this.locks = b.locks;
        this.timeout = b.timeout;
    }

    /**
     * Builds a probe with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the options on the builder it is given and returns it
     * @return the probe
     * @throws NullPointerException if no client was set
     */
    public static HealthProbe of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * Asks the cluster, at most {@linkplain Builder#timeout the timeout} long, on a daemon thread of its own (so that a
     * cluster that accepts connections and never answers cannot hold the caller longer).
     *
     * @return the verdict and its details; a cluster that could not be asked gives a DOWN report whose
     *     {@link HealthReport#error()} says why. Never throws.
     */
    public HealthReport check() {
        FutureTask<HealthReport> task = new FutureTask<>(this::checkNow);
        Thread thread = new Thread(task, "esrel-health");
        thread.setDaemon(true);
        thread.start();
        try {
            return task.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            task.cancel(true);
            return HealthReport.down("no answer from the cluster within " + timeout);
        } catch (ExecutionException e) {
            return HealthReport.down(String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            task.cancel(true);
            return HealthReport.down("interrupted");
        }
    }

    private HealthReport checkNow() throws java.io.IOException {
        // Here, on the check's thread: the first use of a transport sends it a request.
        ElasticsearchClient es = Clients.internal(client);
        JsonObject nodes = RestCall.get("/_nodes/plugins", Map.of()).sendForObject(es);
        if (locks == null) {
            return assess(nodes, null, null, null, null);
        }
        TreeLocks.Backend backend = locks.backend();
        String lockIndex = lockIndex(locks);
        // A wildcard, never the bare name: cluster health waits for a missing index (and reports red when its own
        // timeout ends), while a pattern that matches nothing answers at once.
        JsonObject health = RestCall.get(
                        "/_cluster/health/" + RestCall.segment(lockIndex) + (lockIndex.endsWith("*") ? "" : "*"),
                        Map.of("level", "indices", "expand_wildcards", "all"))
                .sendForObject(es);
        return assess(nodes, backend, locks.index(), lockIndex, health);
    }

    /** The lock index of a provider: the plugin's pattern, or the fallback's index. */
    static String lockIndex(TreeLocks locks) {
        if (locks.backend() == TreeLocks.Backend.PLUGIN) {
            return PLUGIN_LOCK_INDEX_PREFIX + "*";
        }
        return locks instanceof DocumentTreeLocks documents
                ? documents.lockIndex()
                : TreeLocks.Builder.DEFAULT_LOCK_INDEX;
    }

    /**
     * The verdict on what the cluster answered: pure, so that every DOWN rule is tested without a cluster.
     *
     * @param nodesInfo the answer to {@code GET _nodes/plugins}
     * @param backend the provider of the tree locks, or {@code null} without them (then the rest is too)
     * @param namespace the tree locks' namespace
     * @param lockIndex the lock index ({@link #lockIndex}), a pattern for the plugin's
     * @param health the answer to {@code GET _cluster/health/<lock index>*?level=indices}
     */
    static HealthReport assess(
            JsonObject nodesInfo,
            TreeLocks.@Nullable Backend backend,
            @Nullable String namespace,
            @Nullable String lockIndex,
            @Nullable JsonObject health) {
        Map<String, Object> details = new LinkedHashMap<>();
        boolean up = true;

        JsonObject nodes = nodesInfo.getJsonObject("nodes");
        TreeSet<String> versions = new TreeSet<>();
        List<String> missing = new ArrayList<>();
        int count = 0;
        if (nodes != null) {
            for (Map.Entry<String, JsonValue> node : nodes.entrySet()) {
                count++;
                JsonObject info = node.getValue().asJsonObject();
                String version = pluginVersion(info);
                if (version == null) {
                    missing.add(info.getString("name", node.getKey()));
                } else {
                    versions.add(version);
                }
            }
        }
        Map<String, Object> plugin = new LinkedHashMap<>();
        plugin.put("nodes", count);
        plugin.put("withPlugin", count - missing.size());
        plugin.put("version", versions.size() == 1 ? versions.first() : List.copyOf(versions));
        plugin.put("missing", List.copyOf(missing));
        details.put("plugin", plugin);

        if (backend == null) {
            details.put("locks", "no TreeLocks given");
            return new HealthReport(true, details, null, missing);
        }
        Map<String, Object> lockDetails = new LinkedHashMap<>();
        lockDetails.put("provider", backend.name());
        lockDetails.put("namespace", namespace);
        if (backend == TreeLocks.Backend.PLUGIN && (count == 0 || !missing.isEmpty())) {
            up = false;
            lockDetails.put("error", "the tree locks use the plugin, but nodes " + missing + " lack it");
        }
        // Asked whenever there are tree locks.
        JsonObject indices = Objects.requireNonNull(health, "health").getJsonObject("indices");
        String status = null;
        String index = null;
        if (indices != null) {
            for (Map.Entry<String, JsonValue> e : indices.entrySet()) {
                boolean ours = backend == TreeLocks.Backend.PLUGIN
                        ? e.getKey().startsWith(PLUGIN_LOCK_INDEX_PREFIX)
                        : e.getKey().equals(lockIndex);
                if (ours) {
                    index = e.getKey();
                    status = e.getValue().asJsonObject().getString("status", null);
                }
            }
        }
        if (index == null) {
            lockDetails.put("lockIndex", lockIndex);
            lockDetails.put("lockIndexStatus", "not created yet (created on the first lock)");
        } else {
            lockDetails.put("lockIndex", index);
            lockDetails.put("lockIndexStatus", status);
            if ("red".equals(status)) {
                up = false;
                lockDetails.put("error", "the lock index " + index + " is red");
            }
        }
        details.put("locks", lockDetails);
        return new HealthReport(up, details, backend, missing);
    }

    /** The esrel plugin's version on one node, or {@code null} when the node does not list it. */
    private static @Nullable String pluginVersion(JsonObject node) {
        if (!node.containsKey("plugins")) {
            return null;
        }
        for (JsonValue p : node.getJsonArray("plugins")) {
            JsonObject plugin = p.asJsonObject();
            if (Plugins.ESREL.equals(plugin.getString("name", null))) {
                return plugin.getString("version", "unknown");
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "HealthProbe{" + (locks == null ? "plugin only" : locks.backend() + " " + locks.index()) + ", timeout "
                + timeout + '}';
    }

    /** Builder for {@link HealthProbe}. Not thread-safe. */
    public static final class Builder {
        private @Nullable ElasticsearchClient client;
        private @Nullable TreeLocks locks;
        private Duration timeout = DEFAULT_TIMEOUT;

        private Builder() {}

        /**
         * Required: the client whose transport (auth, TLS, nodes) is used.
         *
         * @param client the client, not {@code null}
         * @return this builder
         */
        public Builder client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        /**
         * The application's tree locks, whose provider and lock index are checked. Default none: only the plugin on
         * the nodes is checked.
         *
         * @param locks the tree locks, or {@code null} for none
         * @return this builder
         */
        public Builder treeLocks(@Nullable TreeLocks locks) {
            this.locks = locks;
            return this;
        }

        /**
         * How long one check may take. Default {@link #DEFAULT_TIMEOUT 10 s}.
         *
         * @param timeout the bound, positive
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder timeout(Duration timeout) {
            this.timeout = Checks.positive(timeout, "timeout");
            return this;
        }

        /**
         * Creates the probe; it asks nothing yet.
         *
         * @return the probe
         * @throws NullPointerException if no client was set
         */
        public HealthProbe build() {
            return new HealthProbe(this);
        }
    }
}
