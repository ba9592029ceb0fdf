package io.github.esrel.spring.boot.autoconfigure;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.Plugins;
import io.github.esrel.internal.RestCall;
import io.github.esrel.lock.TreeLocks;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.ObjectProvider;

/**
 * What the {@code esrel} health contributor reports, for either Boot line (each line's indicator only maps the
 * {@link Check} onto its own {@code Health}). Two requests, on a thread of its own so that a cluster that does not
 * answer cannot hold the health endpoint longer than {@code esrel.health.timeout}: {@code GET _nodes/plugins} (the
 * plugin on every node) and, when there is a {@code TreeLocks} bean, the health of its lock index.
 *
 * <p>DOWN when the cluster does not answer within the timeout or refuses the requests, when the {@code TreeLocks} bean
 * uses the plugin and a node lacks it (a lock request served by that node would fail), or when the lock index is red.
 * Everything else is UP with details: a cluster without the plugin serves locks from lock documents and routing from
 * cluster state, so a missing plugin alone is no failure.
 */
final class EsrelHealthProbe {

    /** The prefix of the plugin's lock index ({@code .esrel-treelocks-1}), created on the first lock. */
    static final String PLUGIN_LOCK_INDEX_PREFIX = ".esrel-treelocks-";

    /** What one check found. */
    record Check(boolean up, Map<String, Object> details) {}

    private final ElasticsearchClient applicationClient;
    private final TreeLocks locks;
    private final String documentsLockIndex;
    private final Duration timeout;

    /**
     * @param locks the application's {@code TreeLocks} bean, or {@code null}
     * @param documentsLockIndex the lock index of the documents provider ({@code esrel.locks.lock-index})
     */
    EsrelHealthProbe(ElasticsearchClient client, TreeLocks locks, String documentsLockIndex, Duration timeout) {
        this.applicationClient = client;
        this.locks = locks;
        this.documentsLockIndex = documentsLockIndex;
        this.timeout = timeout;
    }

    /** The probe of the auto-configuration's contributor (either line's): the beans and properties it reads. */
    static EsrelHealthProbe of(
            ElasticsearchClient client, ObjectProvider<TreeLocks> locks, EsrelProperties properties) {
        return new EsrelHealthProbe(
                client,
                locks.getIfUnique(),
                properties.getLocks().getLockIndex(),
                properties.getHealth().getTimeout());
    }

    /** Runs the check within the timeout; never throws. */
    Check check() {
        FutureTask<Check> task = new FutureTask<>(this::checkNow);
        Thread thread = new Thread(task, "esrel-health");
        thread.setDaemon(true);
        thread.start();
        try {
            return task.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            task.cancel(true);
            return down("no answer from the cluster within " + timeout + " (esrel.health.timeout)");
        } catch (ExecutionException e) {
            return down(String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            task.cancel(true);
            return down("interrupted");
        }
    }

    private static Check down(String error) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("error", error);
        return new Check(false, details);
    }

    private Check checkNow() throws IOException {
        // Here, on the check's thread, not in the constructor: the first use of a transport sends it a request.
        ElasticsearchClient client = Clients.internal(applicationClient);
        JsonObject nodes = RestCall.get("/_nodes/plugins", Map.of()).sendForObject(client);
        if (locks == null) {
            return assess(nodes, null, null, null, null);
        }
        TreeLocks.Backend backend = locks.backend();
        String lockIndex = lockIndex(backend, documentsLockIndex);
        // A wildcard, never the bare name: cluster health waits for a missing index (and reports red when its own
        // timeout ends), while a pattern that matches nothing answers at once.
        JsonObject health = RestCall.get(
                        "/_cluster/health/" + RestCall.segment(lockIndex) + (lockIndex.endsWith("*") ? "" : "*"),
                        Map.of("level", "indices", "expand_wildcards", "all"))
                .sendForObject(client);
        return assess(nodes, backend, locks.index(), lockIndex, health);
    }

    /** The lock index of a provider: the plugin's pattern, or the documents provider's index. */
    static String lockIndex(TreeLocks.Backend backend, String documentsLockIndex) {
        return backend == TreeLocks.Backend.PLUGIN ? PLUGIN_LOCK_INDEX_PREFIX + "*" : documentsLockIndex;
    }

    /**
     * The verdict on what the cluster answered: pure, so that every DOWN rule is tested without a cluster.
     *
     * @param nodesInfo the answer to {@code GET _nodes/plugins}
     * @param backend the provider of the {@code TreeLocks} bean, or {@code null} without one (then the rest is too)
     * @param namespace the bean's namespace
     * @param lockIndex the lock index ({@link #lockIndex}), a pattern for the plugin's
     * @param health the answer to {@code GET _cluster/health/<lock index>*?level=indices}
     */
    static Check assess(
            JsonObject nodesInfo, TreeLocks.Backend backend, String namespace, String lockIndex, JsonObject health) {
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
        plugin.put("missing", missing);
        details.put("plugin", plugin);

        if (backend == null) {
            details.put("locks", "no TreeLocks bean (esrel.locks.namespace is not set)");
            return new Check(true, details);
        }
        Map<String, Object> lockDetails = new LinkedHashMap<>();
        lockDetails.put("provider", backend.name());
        lockDetails.put("namespace", namespace);
        if (backend == TreeLocks.Backend.PLUGIN && (count == 0 || !missing.isEmpty())) {
            up = false;
            lockDetails.put("error", "the TreeLocks bean uses the plugin, but nodes " + missing + " lack it");
        }
        JsonObject indices = health.getJsonObject("indices");
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
        return new Check(up, details);
    }

    /** The esrel plugin's version on one node, or {@code null} when the node does not list it. */
    private static String pluginVersion(JsonObject node) {
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
}
