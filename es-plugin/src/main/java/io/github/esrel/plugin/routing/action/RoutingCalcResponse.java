package io.github.esrel.plugin.routing.action;

import io.github.esrel.plugin.routing.RoutingParameters;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.xcontent.ToXContentObject;
import org.elasticsearch.xcontent.XContentBuilder;
import org.jspecify.annotations.Nullable;

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
        /** One document: {@code id}, {@code routing} and {@code shard}. */
        DOC,
        /** A routing value only: {@code routing}, {@code shard} and the {@code shards} a search visits. */
        SEARCH,
        /** A batch: {@code results}, {@code distribution}, {@code skew} and {@code warnings}. */
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
            List<String> warnings) {
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

    /**
     * The shard of one document.
     *
     * @param index      the concrete index
     * @param parameters the index's routing parameters
     * @param id         the document id
     * @param routing    the routing actually used (an alias may supply it), or null
     * @param shard      the shard the document goes to
     * @return a {@link Kind#DOC} response
     */
    public static RoutingCalcResponse doc(
            String index, RoutingParameters parameters, String id, @Nullable String routing, int shard) {
        return new RoutingCalcResponse(
                Kind.DOC, index, parameters, id, routing, shard, new int[0], List.of(), new int[0], 0, List.of());
    }

    /**
     * The shards a routed search visits; {@code shard} is null when it depends on the id.
     *
     * @param index      the concrete index
     * @param parameters the index's routing parameters
     * @param routing    the routing value, as given or supplied by an alias
     * @param shard      the shard of documents indexed with {@code routing}, or null for a partitioned index
     * @param shards     the shards the search visits, ascending; kept, not copied
     * @return a {@link Kind#SEARCH} response
     */
    public static RoutingCalcResponse search(
            String index, RoutingParameters parameters, String routing, @Nullable Integer shard, int[] shards) {
        return new RoutingCalcResponse(
                Kind.SEARCH, index, parameters, null, routing, shard, shards, List.of(), new int[0], 0, List.of());
    }

    /**
     * A batch; {@code index} is null for a hypothetical index.
     *
     * @param index        the concrete index, or null for a hypothetical one
     * @param parameters   the index's routing parameters
     * @param results      one entry per doc, in request order
     * @param distribution docs per shard, indexed by shard number; kept, not copied
     * @param skew         the fullest shard's count divided by the mean
     * @param warnings     human-readable problems found in the batch, possibly none
     * @return a {@link Kind#BATCH} response
     */
    public static RoutingCalcResponse batch(
            @Nullable String index,
            RoutingParameters parameters,
            List<DocShard> results,
            int[] distribution,
            double skew,
            List<String> warnings) {
        return new RoutingCalcResponse(
                Kind.BATCH, index, parameters, null, null, null, new int[0], results, distribution, skew, warnings);
    }

    /**
     * Reads a response sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
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

    /**
     * Which form of the response this is, and so which fields the body has.
     *
     * @return the form
     */
    public Kind kind() {
        return kind;
    }

    /**
     * The concrete index, or null for a hypothetical one.
     *
     * @return the {@code index} field, the concrete index an alias resolved to; null when the body omits it
     */
    public @Nullable String index() {
        return index;
    }

    /**
     * The index parameters every form of the body carries.
     *
     * @return the parameters that decided the shards
     */
    public RoutingParameters parameters() {
        return parameters;
    }

    /**
     * The id of the single document.
     *
     * @return the {@code id} field; null in the routing-only and batch forms
     */
    @Nullable
    public String id() {
        return id;
    }

    /**
     * The routing actually used (an alias may supply it), or null.
     *
     * @return the {@code routing} field; null in the batch form, or when the document is routed by id
     */
    @Nullable
    public String routing() {
        return routing;
    }

    /**
     * The shard of the single document or routing value; null when it depends on the id.
     *
     * @return the {@code shard} field; null for a routing value on a partitioned index, and in the batch form
     */
    @Nullable
    public Integer shard() {
        return shard;
    }

    /**
     * The shards a search with the routing visits, ascending (routing-only form).
     *
     * @return a copy of the {@code shards} field; empty in the other forms
     */
    public int[] shards() {
        return shards.clone();
    }

    /**
     * One entry per doc of a batch, in request order.
     *
     * @return the {@code results} field; empty in the single forms
     */
    public List<DocShard> results() {
        return results;
    }

    /**
     * Docs of the batch per shard, indexed by shard number.
     *
     * @return a copy of the {@code distribution} field, one count per shard, zeros included; empty in the single
     *     forms
     */
    public int[] distribution() {
        return distribution.clone();
    }

    /**
     * The fullest shard's count divided by the mean (1.0 = perfectly even).
     *
     * @return the {@code skew} field; 0 in the single forms
     */
    public double skew() {
        return skew;
    }

    /**
     * Problems the batch shows: an id whose routings put it on different shards, docs with and without
     * routing mixed, a partition size that does not spread the data.
     *
     * @return the {@code warnings} field, messages for people; empty if none, and in the single forms
     */
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
        return Objects.hash(
                kind,
                index,
                parameters,
                id,
                routing,
                shard,
                Arrays.hashCode(shards),
                results,
                Arrays.hashCode(distribution),
                skew,
                warnings);
    }
}
