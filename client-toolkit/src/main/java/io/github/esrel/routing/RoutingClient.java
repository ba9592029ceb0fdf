package io.github.esrel.routing;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.Clients;
import io.github.esrel.internal.Plugins;
import io.github.esrel.internal.RestCall;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads the routing parameters of live indices and computes shards on the server. Thread-safe;
 * holds no connection of its own (it uses the given client).
 *
 * <p>Where the parameters come from, in order: the esrel plugin's {@code _routing_calc} endpoint when
 * the cluster has the plugin (authorized per index, reports the routing function the server really
 * uses); otherwise the index's entry in cluster-state metadata (needs the {@code monitor} cluster
 * privilege); or give them explicitly with {@link RoutingSpec#of}.
 *
 * <pre>{@code
 * RoutingClient routing = RoutingClient.of(b -> b.client(es));
 * RoutingCalculator calc = routing.calculator("orders");      // one round trip, then pure Java
 * RoutingResult r = routing.calculate("orders", docs);         // on the server when the plugin is there
 * }</pre>
 */
public final class RoutingClient {

    /** Documents per request to the plugin's batch endpoint (its default limit is 100,000). */
    static final int BATCH = 10_000;

    private final ElasticsearchClient client;
    private final Source source;

    /** Where {@link #spec(String)} reads parameters from. */
    public enum Source {
        /** The plugin when the cluster has it, otherwise cluster-state metadata. */
        AUTO,
        /** Only the esrel plugin; fails when it is not installed. */
        PLUGIN,
        /** Only cluster-state metadata; works on any cluster, needs the {@code monitor} privilege. */
        CLUSTER_STATE
    }

    private RoutingClient(Builder b) {
        this.client = Clients.internal(Objects.requireNonNull(b.client, "client cannot be null"));
        this.source = b.source;
    }

    /**
     * Builds a routing client with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the options on the builder it is given and returns it
     * @return the new routing client
     * @throws NullPointerException if no client was given
     * @throws IllegalStateException if the server refuses every request of this client line (an 8.x
     *     server with elasticsearch-java 9.x, say)
     */
    public static RoutingClient of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * The routing parameters of an index (or of the single index an alias points at).
     *
     * @param index the index or alias name, not blank
     * @return the parameters of the index, with the index's own name
     * @throws IllegalArgumentException if {@code index} is {@code null} or blank
     * @throws RoutingException if the index does not exist (status 404), routes on document fields
     *     ({@code index.routing_path}: the shard depends on the source, status 400), the plugin is
     *     required but absent, or the cluster fails
     */
    public RoutingSpec spec(String index) {
        requireIndex(index);
        if (source != Source.CLUSTER_STATE) {
            try {
                return specFromPlugin(index);
            } catch (PluginMissing e) {
                if (source == Source.PLUGIN) {
                    throw new RoutingException("the esrel plugin is not installed on this cluster", 0, e.getCause());
                }
            }
        }
        return specFromClusterState(index);
    }

    /**
     * {@code RoutingCalculator.of(spec(index))}: one round trip, then shards are computed locally.
     *
     * @param index the index or alias name, not blank
     * @return a calculator for the index's current parameters
     * @throws IllegalArgumentException if {@code index} is {@code null} or blank
     * @throws RoutingException as {@link #spec(String)}
     */
    public RoutingCalculator calculator(String index) {
        return RoutingCalculator.of(spec(index));
    }

    /**
     * The shards of these documents in this index. With the plugin, the server computes them with its
     * own routing code (in batches of 10,000) and adds its warnings; without it, they are computed
     * locally from the index's parameters.
     *
     * @param index the index or alias name, not blank
     * @param docs the documents, not {@code null}; each names no index or this one
     * @return the shard of each document in the order of {@code docs}, with the spread and, when the
     *     plugin computed them, its warnings
     * @throws IllegalArgumentException if {@code index} is {@code null} or blank
     * @throws NullPointerException if {@code docs} is {@code null}
     * @throws RoutingException as {@link #spec(String)}, and with status 400 when a document lacks a
     *     routing value the index requires
     */
    public RoutingResult calculate(String index, List<DocRef> docs) {
        requireIndex(index);
        Objects.requireNonNull(docs, "docs cannot be null");
        if (source != Source.CLUSTER_STATE) {
            try {
                return calculateOnServer(index, docs);
            } catch (PluginMissing e) {
                if (source == Source.PLUGIN) {
                    throw new RoutingException("the esrel plugin is not installed on this cluster", 0, e.getCause());
                }
            }
        }
        RoutingCalculator calc = RoutingCalculator.of(specFromClusterState(index));
        int[] shards = new int[docs.size()];
        long[] counts = new long[calc.spec().numberOfShards()];
        for (int i = 0; i < shards.length; i++) {
            DocRef d = docs.get(i);
            try {
                shards[i] = calc.shard(d.requireIn(index));
            } catch (IllegalArgumentException e) {
                throw new RoutingException(e.getMessage(), 400, e);
            }
            counts[shards[i]]++;
        }
        return new RoutingResult(calc.spec(), shards, new Distribution(counts), List.of(), false);
    }

    private RoutingResult calculateOnServer(String index, List<DocRef> docs) {
        int[] shards = new int[docs.size()];
        Set<String> warnings = new LinkedHashSet<>();
        RoutingSpec spec = null;
        long[] counts = null;
        for (int from = 0; from < docs.size() || spec == null; from += BATCH) {
            List<DocRef> chunk = docs.subList(Math.min(from, docs.size()), Math.min(from + BATCH, docs.size()));
            JsonObject answer = chunk.isEmpty()
                    ? callPlugin(index, RestCall.get(calcPath(index), Map.of("routing", "_")))
                    : callPlugin(index, RestCall.postRead(calcPath(index), Map.of(), Map.of("docs", toBody(chunk))));
            spec = specFrom(index, answer);
            if (counts == null) {
                counts = new long[spec.numberOfShards()];
            }
            if (chunk.isEmpty()) {
                break;
            }
            List<JsonValue> results = answer.getJsonArray("results");
            for (int i = 0; i < results.size(); i++) {
                int shard = results.get(i).asJsonObject().getInt("shard");
                shards[from + i] = shard;
                counts[shard]++;
            }
            answer.getJsonArray("warnings").forEach(w -> warnings.add(((JsonString) w).getString()));
        }
        return new RoutingResult(
                spec,
                shards,
                new Distribution(Objects.requireNonNull(counts, "the first answer sized the counts")),
                new ArrayList<>(warnings),
                true);
    }

    private RoutingSpec specFromPlugin(String index) {
        // A routing value makes the call valid on every index kind (partitioned, routing required).
        return specFrom(index, callPlugin(index, RestCall.get(calcPath(index), Map.of("routing", "_"))));
    }

    private static RoutingSpec specFrom(String requested, JsonObject o) {
        return RoutingSpec.of(b -> b.index(o.containsKey("index") ? o.getString("index") : requested)
                .numberOfShards(o.getInt("number_of_shards"))
                .routingNumShards(o.getInt("routing_num_shards"))
                .routingPartitionSize(o.getInt("routing_partition_size"))
                .function(RoutingFunction.fromJsonName(o.getString("routing_function")))
                // Partitioned indices and _routing.required mappings: the same answer the cluster state gives.
                .routingRequired(o.getBoolean("routing_required", false)));
    }

    private JsonObject callPlugin(String index, RestCall call) {
        try {
            return call.send(client).toJson().asJsonObject();
        } catch (ElasticsearchException e) {
            if (Plugins.isMissingHandler(e)) {
                throw new PluginMissing(e);
            }
            throw new RoutingException(
                    "routing calculation for [" + index + "] failed: " + e.getMessage(), e.status(), e);
        } catch (IOException e) {
            throw new RoutingException("routing calculation for [" + index + "] failed: " + e.getMessage(), 0, e);
        }
    }

    private RoutingSpec specFromClusterState(String index) {
        JsonObject indices;
        try {
            // Plain JSON rather than the typed API, whose metric type changed between client versions (9.3).
            indices = RestCall.get("/_cluster/state/metadata/" + RestCall.segment(index), Map.of())
                    .sendForObject(client)
                    .getJsonObject("metadata")
                    .getJsonObject("indices");
        } catch (ElasticsearchException e) {
            throw new RoutingException(
                    "cannot read the metadata of index [" + index + "]: " + e.getMessage(), e.status(), e);
        } catch (IOException e) {
            throw new RoutingException("cannot read the metadata of index [" + index + "]: " + e.getMessage(), 0, e);
        }
        if (indices == null || indices.isEmpty()) {
            throw new RoutingException("no such index [" + index + "]", 404, null);
        }
        if (indices.size() > 1) {
            throw new RoutingException(
                    "[" + index + "] resolves to " + indices.size() + " indices " + indices.keySet()
                            + "; routing is computed per index, name one",
                    400,
                    null);
        }
        String name = indices.keySet().iterator().next();
        return specFromMetadata(name, indices.getJsonObject(name));
    }

    static RoutingSpec specFromMetadata(String name, JsonObject meta) {
        JsonObject settings = meta.getJsonObject("settings").getJsonObject("index");
        if (settings.containsKey("routing_path") || "time_series".equals(str(settings.get("mode")))) {
            throw new RoutingException(
                    "index [" + name + "] routes documents on their source fields "
                            + "(index.routing_path): the shard depends on the document, not on id and routing",
                    400,
                    null);
        }
        int shards = Integer.parseInt(str(settings.get("number_of_shards")));
        int routingNumShards = meta.containsKey("routing_num_shards")
                ? meta.getInt("routing_num_shards")
                : RoutingSpec.defaultRoutingNumShards(shards);
        int partition = settings.containsKey("routing_partition_size")
                ? Integer.parseInt(str(settings.get("routing_partition_size")))
                : 1;
        int created = Integer.parseInt(str(settings.getJsonObject("version").get("created")));
        return RoutingSpec.of(b -> b.index(name)
                .numberOfShards(shards)
                .routingNumShards(routingNumShards)
                .routingPartitionSize(partition)
                .function(RoutingFunction.forIndexVersionId(created))
                .routingRequired(routingRequired(meta.getJsonObject("mappings"))));
    }

    /** {@code _routing.required}, whether the mapping is keyed by {@code _doc} or not. */
    private static boolean routingRequired(JsonObject mappings) {
        if (mappings == null || mappings.isEmpty()) {
            return false;
        }
        JsonObject mapping = mappings.containsKey("_doc") ? mappings.getJsonObject("_doc") : mappings;
        JsonObject routing = mapping.getJsonObject("_routing");
        return routing != null && JsonValue.TRUE.equals(routing.get("required"))
                || routing != null && "true".equals(str(routing.get("required")));
    }

    private static @Nullable String str(@Nullable JsonValue v) {
        if (v == null) {
            return null;
        }
        if (v instanceof JsonString) {
            return ((JsonString) v).getString();
        }
        if (v instanceof JsonNumber) {
            return v.toString();
        }
        return v.toString();
    }

    private static List<Map<String, String>> toBody(List<DocRef> docs) {
        List<Map<String, String>> body = new ArrayList<>(docs.size());
        for (DocRef d : docs) {
            body.add(d.routing() == null ? Map.of("id", d.id()) : Map.of("id", d.id(), "routing", d.routing()));
        }
        return body;
    }

    private static String calcPath(String index) {
        return "/" + RestCall.segment(index) + "/_routing_calc";
    }

    private static void requireIndex(String index) {
        if (index == null || index.isBlank()) {
            throw new IllegalArgumentException("index must not be empty");
        }
    }

    @Override
    public String toString() {
        return "RoutingClient{source=" + source + '}';
    }

    /** Builder for {@link RoutingClient}. */
    public static final class Builder {
        private @Nullable ElasticsearchClient client;
        private Source source = Source.AUTO;

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
         * Where {@link RoutingClient#spec(String)} reads parameters from. Default {@link Source#AUTO}.
         *
         * @param source the source, not {@code null}
         * @return this builder
         */
        public Builder source(Source source) {
            this.source = Objects.requireNonNull(source, "source cannot be null");
            return this;
        }

        /**
         * Creates the routing client. The first entry point built on a transport sends one request
         * ({@code GET /}) to check that the server accepts this client line.
         *
         * @return the new routing client
         * @throws NullPointerException if no client was given
         * @throws IllegalStateException if the server refuses every request of this client line
         */
        public RoutingClient build() {
            return new RoutingClient(this);
        }
    }

    /** The cluster answered that it has no handler for the plugin's path. */
    private static final class PluginMissing extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PluginMissing(Throwable cause) {
            super(cause);
        }
    }
}
