package io.github.esrel.plugin.routing.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.routing.BatchWarnings;
import io.github.esrel.plugin.routing.ReleaseVersion;
import io.github.esrel.plugin.routing.RoutingCompat;
import io.github.esrel.plugin.routing.RoutingFunctionType;
import io.github.esrel.plugin.routing.RoutingParameters;
import io.github.esrel.plugin.routing.ShardFunction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.elasticsearch.Build;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.metadata.MetadataCreateIndexService;
import org.elasticsearch.cluster.routing.IndexRouting;
import org.elasticsearch.common.settings.Setting;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.IndexNotFoundException;
import org.elasticsearch.index.IndexVersion;
import org.jspecify.annotations.Nullable;

/**
 * Computes which shard documents go to, exactly as Elasticsearch does: real indices are answered by the
 * server's own {@link IndexRouting#fromIndexMetadata}, so the routing function of the index's creation
 * version (legacy before 9.4, modulo after), split and shrunk indices (routing_num_shards kept from the
 * source) and partitioned indices all come out right for any id.
 *
 * <p>Every failure is an exception Elasticsearch maps to a 4xx: {@link IndexNotFoundException} (404) and
 * {@link IllegalArgumentException} (400) with a message naming the value and the fix. Stateless and
 * thread-safe.
 */
public final class RoutingCalculator {

    /** The most docs one batch may hold. A node setting because it bounds the memory one request takes. */
    public static final Setting<Integer> MAX_BATCH_DOCS_SETTING =
            Setting.intSetting("esrel.routing.max_batch_docs", 100_000, 1, Setting.Property.NodeScope);

    /** The name the server's validation messages use for a hypothetical index. */
    static final String HYPOTHETICAL_INDEX = "hypothetical-index";

    private final int maxBatchDocs;

    /**
     * Creates a calculator.
     *
     * @param maxBatchDocs the most docs one batch may hold
     * @throws IllegalArgumentException if {@code maxBatchDocs} is less than 1
     */
    public RoutingCalculator(int maxBatchDocs) {
        if (maxBatchDocs < 1) {
            throw new IllegalArgumentException("maxBatchDocs must be 1 or more, got " + maxBatchDocs);
        }
        this.maxBatchDocs = maxBatchDocs;
    }

    /**
     * A calculator configured by the node settings.
     *
     * @param settings the node settings, read for {@link #MAX_BATCH_DOCS_SETTING}
     * @return a new calculator
     */
    public static RoutingCalculator fromSettings(Settings settings) {
        return new RoutingCalculator(MAX_BATCH_DOCS_SETTING.get(settings));
    }

    /**
     * The most docs one batch may hold.
     *
     * @return the limit, at least 1
     */
    public int maxBatchDocs() {
        return maxBatchDocs;
    }

    /**
     * The message for a batch over the limit.
     *
     * @param maxDocs the limit in force
     * @return a message naming the limit, the setting and the fix
     */
    public static String tooManyDocsMessage(int maxDocs) {
        return "docs must hold at most "
                + maxDocs
                + " entries (node setting ["
                + MAX_BATCH_DOCS_SETTING.getKey()
                + "]); split the batch or raise the setting";
    }

    /**
     * Answers a request about an existing index or an alias to one.
     *
     * @param indices the indices and aliases of the cluster state
     * @param request the validated request
     * @return the single-document, routing-only or batch answer, as the request asks
     * @throws IndexNotFoundException   if the index does not exist
     * @throws IllegalArgumentException if the expression names several indices, the index routes by source
     *                                  fields, routing is required but missing, or the batch is too large
     */
    public RoutingCalcResponse calculate(ClusterIndices indices, RoutingCalcRequest request) {
        checkBatchSize(request.docs());
        IndexMetadata indexMetadata = resolveSingleIndex(indices, request);
        String index = indexMetadata.getIndex().getName();
        String expression = request.indices().length == 1 ? request.indices()[0] : index;
        // An alias may carry index_routing / search_routing: Elasticsearch applies it when the request has
        // none (and refuses a different one), so the answer must too.
        UnaryOperator<String> indexRouting = indices.isAlias(expression)
                ? routing -> indices.resolveIndexRouting(routing, expression)
                : UnaryOperator.identity();
        Target target = Target.of(indexMetadata);
        String routingRequiredBecause = routingRequiredBecause(indexMetadata, target.parameters());

        if (request.docs() != null) {
            return batch(index, target, request.docs(), indexRouting, routingRequiredBecause);
        }
        if (request.id() != null) {
            String routing = indexRouting.apply(request.routing());
            if (routing == null && routingRequiredBecause != null) {
                throw new IllegalArgumentException("routing is required for index [" + index + "] because "
                        + routingRequiredBecause + "; add ?routing=... to the request");
            }
            return RoutingCalcResponse.doc(
                    index,
                    target.parameters(),
                    request.id(),
                    routing,
                    target.function().shard(request.id(), routing));
        }
        return search(indices, request, index, target);
    }

    /**
     * Answers a request about an index that does not exist: the parameters are validated by building the
     * {@link IndexMetadata} the server would build, and the shards come from the server's routing for it.
     *
     * @param request the validated request
     * @return the batch answer, without an index name
     * @throws IllegalArgumentException if the parameters are invalid or the batch is too large
     */
    public RoutingCalcResponse calculate(HypotheticalRoutingCalcRequest request) {
        checkBatchSize(request.docs());
        RoutingFunctionType type = functionOf(request);
        IndexVersion created = RoutingCompat.creationVersionFor(type);
        int shards = Objects.requireNonNull(request.numberOfShards()); // validate() refused a request without
        int routingShards = request.routingNumShards() != null
                ? request.routingNumShards()
                : MetadataCreateIndexService.calculateNumRoutingShards(shards, created);
        int partitionSize = request.routingPartitionSize() != null ? request.routingPartitionSize() : 1;
        if (partitionSize > 1 && partitionSize >= routingShards) {
            throw new IllegalArgumentException("routing_partition_size must be less than routing_num_shards ("
                    + routingShards + "), got " + partitionSize);
        }
        IndexMetadata indexMetadata = buildIndexMetadata(created, shards, routingShards, partitionSize);
        RoutingParameters parameters = parametersOf(indexMetadata, type);
        Target target = new Target(parameters, RoutingCompat.hypothetical(indexMetadata, type));
        String routingRequiredBecause =
                parameters.partitioned() ? "it is partitioned (routing_partition_size " + partitionSize + ")" : null;
        return batch(
                null,
                target,
                Objects.requireNonNull(request.docs()), // validate() refused a request without
                UnaryOperator.identity(),
                routingRequiredBecause);
    }

    private RoutingCalcResponse search(
            ClusterIndices indices, RoutingCalcRequest request, String index, Target target) {
        // The server's own resolution: splits "a,b" into two values and intersects with an alias's search_routing.
        Map<String, Set<String>> resolved = indices.resolveSearchRouting(request.routing(), request.indices());
        Set<String> values = resolved == null ? null : resolved.get(index);
        if (values == null) {
            throw new IllegalArgumentException("either id or routing is required, e.g. GET /" + index
                    + "/_routing_calc?id=1 or GET /" + index + "/_routing_calc?routing=user-1");
        }
        TreeSet<String> sortedValues = new TreeSet<>(values);
        TreeSet<Integer> shards = new TreeSet<>();
        for (String value : sortedValues) {
            target.function().searchShards(value, shards::add);
        }
        String routing = request.routing() != null ? request.routing() : String.join(",", sortedValues);
        Integer shard = null;
        // Documents indexed with this routing value all go to one shard unless the index is partitioned
        // (then it depends on the id). An indexed routing is taken literally, commas included.
        if (target.parameters().partitioned() == false && (request.routing() != null || sortedValues.size() == 1)) {
            String literal = request.routing() != null ? request.routing() : sortedValues.first();
            int[] first = {-1};
            target.function().searchShards(literal, s -> first[0] = s);
            shard = first[0];
        }
        return RoutingCalcResponse.search(
                index,
                target.parameters(),
                routing,
                shard,
                shards.stream().mapToInt(Integer::intValue).toArray());
    }

    private RoutingCalcResponse batch(
            @Nullable String index,
            Target target,
            List<RoutingCalcDoc> docs,
            UnaryOperator<String> indexRouting,
            @Nullable String routingRequiredBecause) {
        String[] routings = new String[docs.size()];
        List<String> missing = new ArrayList<>();
        int missingCount = 0;
        for (int i = 0; i < routings.length; i++) {
            routings[i] = indexRouting.apply(docs.get(i).routing());
            if (routings[i] == null && routingRequiredBecause != null) {
                if (missing.size() < BatchWarnings.MAX_LISTED) {
                    missing.add(docs.get(i).id());
                }
                missingCount++;
            }
        }
        if (missingCount > 0) {
            throw new IllegalArgumentException("routing is required for "
                    + (index == null ? "this index" : "index [" + index + "]")
                    + " because "
                    + routingRequiredBecause
                    + ", but "
                    + missingCount
                    + (missingCount == 1 ? " doc has" : " docs have")
                    + " none: ids "
                    + BatchWarnings.listIds(missing, missingCount)
                    + "; give these docs a routing");
        }
        RoutingParameters parameters = target.parameters();
        int[] distribution = new int[parameters.numberOfShards()];
        List<DocShard> results = new ArrayList<>(docs.size());
        BatchWarnings warnings = new BatchWarnings(parameters, target.function());
        for (int i = 0; i < routings.length; i++) {
            String id = docs.get(i).id();
            int shard = target.function().shard(id, routings[i]);
            results.add(new DocShard(id, routings[i], shard));
            distribution[shard]++;
            warnings.accept(id, routings[i], shard);
        }
        int max = Arrays.stream(distribution).max().orElse(0);
        double skew = max / (docs.size() / (double) parameters.numberOfShards());
        return RoutingCalcResponse.batch(index, parameters, results, distribution, skew, warnings.warnings());
    }

    private void checkBatchSize(@Nullable List<RoutingCalcDoc> docs) {
        if (docs != null && docs.size() > maxBatchDocs) {
            throw new IllegalArgumentException(tooManyDocsMessage(maxBatchDocs));
        }
    }

    private static IndexMetadata resolveSingleIndex(ClusterIndices indices, RoutingCalcRequest request) {
        String expression = String.join(",", request.indices());
        String[] names = indices.concreteIndexNames(request);
        if (names.length == 0) {
            throw new IndexNotFoundException(expression);
        }
        if (names.length > 1) {
            List<String> sorted = new ArrayList<>(new TreeSet<>(Arrays.asList(names)));
            throw new IllegalArgumentException("["
                    + expression
                    + "] resolves to "
                    + names.length
                    + " indices "
                    + BatchWarnings.listIds(sorted, sorted.size())
                    + ": routing is calculated for one index at a time; name one of them");
        }
        IndexMetadata indexMetadata = indices.index(names[0]);
        if (indexMetadata == null) {
            throw new IndexNotFoundException(names[0]);
        }
        return indexMetadata;
    }

    @Nullable
    private static String routingRequiredBecause(IndexMetadata indexMetadata, RoutingParameters parameters) {
        if (parameters.partitioned()) {
            return "it is partitioned (routing_partition_size " + parameters.routingPartitionSize() + ")";
        }
        if (indexMetadata.mapping() != null && indexMetadata.mapping().routingRequired()) {
            return "its mapping sets _routing.required";
        }
        return null;
    }

    static RoutingParameters parametersOf(IndexMetadata indexMetadata, RoutingFunctionType type) {
        return new RoutingParameters(
                indexMetadata.getNumberOfShards(),
                indexMetadata.getRoutingNumShards(),
                indexMetadata.getRoutingFactor(),
                indexMetadata.getRoutingPartitionSize(),
                type,
                indexMetadata.getRoutingPartitionSize() > 1
                        || (indexMetadata.mapping() != null
                                && indexMetadata.mapping().routingRequired()));
    }

    /** The function a hypothetical index uses: from index_version or routing_function, else this node's default. */
    static RoutingFunctionType functionOf(HypotheticalRoutingCalcRequest request) {
        RoutingFunctionType fromVersion = null;
        if (request.indexVersion() != null) {
            ReleaseVersion version = ReleaseVersion.parse("index_version", request.indexVersion());
            // The functions of every release up to the plugin's own line are known, whatever the node runs (an
            // 8.19 node answers for a 9.5 index too); a later major may have changed routing again.
            ReleaseVersion node =
                    ReleaseVersion.parse("node version", Build.current().version());
            int newestKnownMajor = Math.max(node.major(), RoutingFunctionType.MODULO_SINCE.major());
            if (version.major() > newestKnownMajor) {
                throw new IllegalArgumentException(
                        "index_version ["
                                + request.indexVersion()
                                + "] is from a later major version than this node ("
                                + node
                                + ") and this plugin know, so its routing function is unknown here; give routing_function [legacy] or [modulo] instead");
            }
            fromVersion = RoutingFunctionType.forRelease(version);
        }
        if (request.routingFunction() != null) {
            RoutingFunctionType given = RoutingFunctionType.fromJsonName(request.routingFunction());
            if (fromVersion != null && fromVersion != given) {
                throw new IllegalArgumentException("routing_function [" + request.routingFunction()
                        + "] contradicts index_version [" + request.indexVersion() + "]");
            }
            return given;
        }
        return fromVersion != null ? fromVersion : RoutingCompat.newIndexFunction();
    }

    /** Lets the server validate the parameters the way it validates a new index; its messages become 400s. */
    private static IndexMetadata buildIndexMetadata(
            IndexVersion created, int shards, int routingShards, int partitionSize) {
        Settings settings = Settings.builder()
                .put(IndexMetadata.SETTING_VERSION_CREATED, created)
                .put(IndexMetadata.SETTING_NUMBER_OF_SHARDS, shards)
                .put(IndexMetadata.SETTING_NUMBER_OF_REPLICAS, 0)
                .put(IndexMetadata.SETTING_ROUTING_PARTITION_SIZE, partitionSize)
                .put(IndexMetadata.INDEX_NUMBER_OF_ROUTING_SHARDS_SETTING.getKey(), routingShards)
                .build();
        try {
            IndexMetadata.INDEX_NUMBER_OF_ROUTING_SHARDS_SETTING.get(settings);
            return IndexMetadata.builder(HYPOTHETICAL_INDEX)
                    .settings(settings)
                    .setRoutingNumShards(routingShards)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid index parameters: " + e.getMessage(), e);
        }
    }

    /** A resolved index: its parameters and how it routes. */
    record Target(RoutingParameters parameters, ShardFunction function) {

        /** The server's routing for a real index; indices that route by source fields are refused. */
        static Target of(IndexMetadata indexMetadata) {
            IndexRouting routing = IndexRouting.fromIndexMetadata(indexMetadata);
            if (routing instanceof IndexRouting.ExtractFromSource) {
                throw new IllegalArgumentException(
                        "index ["
                                + indexMetadata.getIndex().getName()
                                + "] routes documents by the values of fields in their source (index.mode ["
                                + indexMetadata.getIndexMode()
                                + "], index.routing_path "
                                + indexMetadata.getRoutingPaths()
                                + "): the shard depends on the document source, not on an id or routing, so it cannot be calculated here");
            }
            return new Target(
                    parametersOf(indexMetadata, RoutingCompat.functionOf(indexMetadata)),
                    ShardFunction.server(routing));
        }
    }
}
