package io.github.esrel.plugin.routing.action;

import io.github.esrel.plugin.routing.RoutingParameters;

import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.core.Nullable;
import org.elasticsearch.xcontent.ToXContentObject;
import org.elasticsearch.xcontent.XContentBuilder;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The answer of both routing actions. Every form carries the index parameters
 * ({@code number_of_shards, routing_num_shards, routing_factor, routing_partition_size, routing_function}):
 * <pre>
 * one doc:      {"index", "id", "routing", "shard", ...parameters}
 * routing only: {"index", "id": null, "routing", "shard" (null if partitioned), "shards": [...], ...parameters}
 * batch:        {"index", ...parameters, "results": [{"id", "routing", "shard"}], "distribution": [...],
 *                "skew": 1.04, "warnings": [...]}
 * </pre>
 * {@code index} is absent for a hypothetical index.
 */
public final class RoutingCalcResponse extends ActionResponse implements ToXContentObject {

    /** Which form of the response this is. */
    public enum Kind {
        DOC,
        SEARCH,
        BATCH
    }

    private final Kind kind;
    @Nullable
    private final String index;
    private final RoutingParameters parameters;
    @Nullable
    private final String id;
    @Nullable
    private final String routing;
    @Nullable
    private final Integer shard;
    private final int[] shards;
    private final List<DocShard> results;
    private final int[] distribution;
    private final double skew;
    private final List<String> warnings;

    private RoutingCalcResponse(
        Kind kind,
        @Nullable String index,
        RoutingParameters parameters,
        @Nullable String id,
        @Nullable String routing,
        @Nullable Integer shard,
        int[] shards,
        List<DocShard> results,
        int[] distribution,
        double skew,
        List<String> warnings
    ) {
        this.kind = kind;
        this.index = index;
        this.parameters = Objects.requireNonNull(parameters, "parameters cannot be null");
        this.id = id;
        this.routing = routing;
        this.shard = shard;
        this.shards = shards;
        this.results = results;
        this.distribution = distribution;
        this.skew = skew;
        this.warnings = warnings;
    }

    /** The shard of one document. */
    public static RoutingCalcResponse doc(String index, RoutingParameters parameters, String id, @Nullable String routing, int shard) {
        return new RoutingCalcResponse(Kind.DOC, index, parameters, id, routing, shard, new int[0], List.of(), new int[0], 0, List.of());
    }

    /** The shards a routed search visits; {@code shard} is null when it depends on the id. */
    public static RoutingCalcResponse search(
        String index,
        RoutingParameters parameters,
        String routing,
        @Nullable Integer shard,
        int[] shards
    ) {
        return new RoutingCalcResponse(Kind.SEARCH, index, parameters, null, routing, shard, shards, List.of(), new int[0], 0, List.of());
    }

    /** A batch; {@code index} is null for a hypothetical index. */
    public static RoutingCalcResponse batch(
        @Nullable String index,
        RoutingParameters parameters,
        List<DocShard> results,
        int[] distribution,
        double skew,
        List<String> warnings
    ) {
        return new RoutingCalcResponse(Kind.BATCH, index, parameters, null, null, null, new int[0], results, distribution, skew, warnings);
    }

    public RoutingCalcResponse(StreamInput in) throws IOException {
        kind = in.readEnum(Kind.class);
        index = in.readOptionalString();
        parameters = RoutingParameters.readFrom(in);
        id = in.readOptionalString();
        routing = in.readOptionalString();
        shard = in.readOptionalVInt();
        shards = in.readIntArray();
        results = in.readCollectionAsList(DocShard::readFrom);
        distribution = in.readIntArray();
        skew = in.readDouble();
        warnings = in.readStringCollectionAsList();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeEnum(kind);
        out.writeOptionalString(index);
        parameters.writeTo(out);
        out.writeOptionalString(id);
        out.writeOptionalString(routing);
        out.writeOptionalVInt(shard);
        out.writeIntArray(shards);
        out.writeCollection(results);
        out.writeIntArray(distribution);
        out.writeDouble(skew);
        out.writeStringCollection(warnings);
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject();
        if (index != null) {
            builder.field("index", index);
        }
        if (kind != Kind.BATCH) {
            builder.field("id", id);
            builder.field("routing", routing);
            builder.field("shard", shard);
        }
        if (kind == Kind.SEARCH) {
            builder.array("shards", shards);
        }
        parameters.toXContentFields(builder);
        if (kind == Kind.BATCH) {
            builder.startArray("results");
            for (DocShard result : results) {
                result.toXContent(builder, params);
            }
            builder.endArray();
            builder.array("distribution", distribution);
            builder.field("skew", skew);
            builder.array("warnings", warnings.toArray(String[]::new));
        }
        return builder.endObject();
    }

    public Kind kind() {
        return kind;
    }

    /** The concrete index, or null for a hypothetical one. */
    @Nullable
    public String index() {
        return index;
    }

    public RoutingParameters parameters() {
        return parameters;
    }

    @Nullable
    public String id() {
        return id;
    }

    /** The routing actually used (an alias may supply it), or null. */
    @Nullable
    public String routing() {
        return routing;
    }

    /** The shard of the single document or routing value; null when it depends on the id. */
    @Nullable
    public Integer shard() {
        return shard;
    }

    /** The shards a search with the routing visits, ascending (routing-only form). */
    public int[] shards() {
        return shards.clone();
    }

    /** One entry per doc of a batch, in request order. */
    public List<DocShard> results() {
        return results;
    }

    /** Docs of the batch per shard, indexed by shard number. */
    public int[] distribution() {
        return distribution.clone();
    }

    /** The fullest shard's count divided by the mean (1.0 = perfectly even). */
    public double skew() {
        return skew;
    }

    public List<String> warnings() {
        return warnings;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RoutingCalcResponse r
            && kind == r.kind
            && Objects.equals(index, r.index)
            && parameters.equals(r.parameters)
            && Objects.equals(id, r.id)
            && Objects.equals(routing, r.routing)
            && Objects.equals(shard, r.shard)
            && Arrays.equals(shards, r.shards)
            && results.equals(r.results)
            && Arrays.equals(distribution, r.distribution)
            && Double.compare(skew, r.skew) == 0
            && warnings.equals(r.warnings);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, index, parameters, id, routing, shard, Arrays.hashCode(shards), results, Arrays.hashCode(distribution), skew, warnings);
    }
}
