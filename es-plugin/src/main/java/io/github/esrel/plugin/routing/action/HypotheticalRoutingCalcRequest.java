package io.github.esrel.plugin.routing.action;

import io.github.esrel.plugin.routing.ReleaseVersion;
import io.github.esrel.plugin.routing.RoutingFunctionType;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.elasticsearch.action.ActionRequest;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.action.ValidateActions;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.xcontent.XContentParser;
import org.jspecify.annotations.Nullable;

/**
 * Where documents would go in an index that does not exist, given its routing parameters:
 * <pre>
 * {"number_of_shards": 5, "routing_num_shards": 640, "routing_partition_size": 1,
 *  "index_version": "9.5.3", "docs": [{"id": "1"}]}
 * </pre>
 * Only {@code number_of_shards} and {@code docs} are required; the rest default as for a new index on
 * this cluster.
 */
public final class HypotheticalRoutingCalcRequest extends ActionRequest {

    /** Elasticsearch's per-index limit ({@code es.index.max_number_of_shards} defaults to 1024). */
    public static final int MAX_NUMBER_OF_SHARDS = 1024;
    /** The oldest index a 9.x cluster can hold (read-only 7.x indices). */
    public static final ReleaseVersion OLDEST_INDEX_VERSION = new ReleaseVersion(7, 0, 0);

    private static final String FIELDS =
            "[number_of_shards, routing_num_shards, routing_partition_size, index_version, routing_function, docs]";

    private final @Nullable Integer numberOfShards;

    @Nullable
    private final Integer routingNumShards;

    @Nullable
    private final Integer routingPartitionSize;

    @Nullable
    private final String indexVersion;

    @Nullable
    private final String routingFunction;

    private final @Nullable List<RoutingCalcDoc> docs;

    /**
     * Creates a request; {@link #validate()} checks the parameters and their combination.
     *
     * @param numberOfShards       primary shards (required)
     * @param routingNumShards     the routing shards, or null for the default of a new index
     * @param routingPartitionSize the partition size, or null for 1
     * @param indexVersion         the release that created the index ({@code 8.19.0}), or null for this node's
     * @param routingFunction      {@code legacy} or {@code modulo}, or null to follow {@code indexVersion}
     * @param docs                 the docs to place; copied
     */
    public HypotheticalRoutingCalcRequest(
            @Nullable Integer numberOfShards,
            @Nullable Integer routingNumShards,
            @Nullable Integer routingPartitionSize,
            @Nullable String indexVersion,
            @Nullable String routingFunction,
            @Nullable List<RoutingCalcDoc> docs) {
        this.numberOfShards = numberOfShards;
        this.routingNumShards = routingNumShards;
        this.routingPartitionSize = routingPartitionSize;
        this.indexVersion = indexVersion;
        this.routingFunction = routingFunction;
        this.docs = docs == null ? null : List.copyOf(docs);
    }

    /**
     * Reads the body shown in the class comment.
     *
     * @param parser  the parser over the request body
     * @param maxDocs refuse the body as soon as it holds more docs than this
     * @return the request, not yet validated
     * @throws IOException if the body cannot be read; an {@code XContentParseException} (400) for malformed
     *     JSON, wrong types, unknown fields or a doc without an id
     * @throws IllegalArgumentException if a number is out of range or the body holds more than {@code maxDocs}
     *     docs
     */
    public static HypotheticalRoutingCalcRequest fromXContent(XContentParser parser, int maxDocs) throws IOException {
        BodyParser.startObject(parser, "{\"number_of_shards\": 5, \"docs\": [{\"id\": \"1\"}]}");
        Integer shards = null;
        Integer routingShards = null;
        Integer partitionSize = null;
        String version = null;
        String function = null;
        List<RoutingCalcDoc> docs = null;
        XContentParser.Token token;
        while ((token = parser.nextToken()) != XContentParser.Token.END_OBJECT) {
            String field = parser.currentName();
            token = parser.nextToken();
            switch (field) {
                case "number_of_shards" -> shards = BodyParser.integer(parser, token, field, 1, MAX_NUMBER_OF_SHARDS);
                case "routing_num_shards" ->
                    routingShards = BodyParser.integer(parser, token, field, 1, Integer.MAX_VALUE);
                case "routing_partition_size" ->
                    partitionSize = BodyParser.integer(parser, token, field, 1, Integer.MAX_VALUE);
                case "index_version" -> version = BodyParser.string(parser, token, field, false);
                case "routing_function" -> function = BodyParser.string(parser, token, field, false);
                case "docs" -> docs = BodyParser.docs(parser, maxDocs);
                default -> throw BodyParser.unknownField(parser, field, FIELDS);
            }
        }
        BodyParser.endOfBody(parser);
        return new HypotheticalRoutingCalcRequest(shards, routingShards, partitionSize, version, function, docs);
    }

    /**
     * Reads a request sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public HypotheticalRoutingCalcRequest(StreamInput in) throws IOException {
        super(in);
        numberOfShards = in.readOptionalInt();
        routingNumShards = in.readOptionalInt();
        routingPartitionSize = in.readOptionalInt();
        indexVersion = in.readOptionalString();
        routingFunction = in.readOptionalString();
        docs = in.readOptionalCollectionAsList(RoutingCalcDoc::readFrom);
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeOptionalInt(numberOfShards);
        out.writeOptionalInt(routingNumShards);
        out.writeOptionalInt(routingPartitionSize);
        out.writeOptionalString(indexVersion);
        out.writeOptionalString(routingFunction);
        out.writeOptionalCollection(docs);
    }

    @Override
    public @Nullable ActionRequestValidationException validate() {
        ActionRequestValidationException e = null;
        if (numberOfShards == null) {
            e = ValidateActions.addValidationError(
                    "number_of_shards is required, e.g. {\"number_of_shards\": 5, \"docs\": [...]}", e);
        } else if (numberOfShards < 1 || numberOfShards > MAX_NUMBER_OF_SHARDS) {
            e = ValidateActions.addValidationError(
                    "number_of_shards must be between 1 and " + MAX_NUMBER_OF_SHARDS + ", got " + numberOfShards, e);
        } else if (routingNumShards != null) {
            if (routingNumShards < numberOfShards) {
                e = ValidateActions.addValidationError(
                        "routing_num_shards must be at least number_of_shards (" + numberOfShards + "), got "
                                + routingNumShards,
                        e);
            } else if (routingNumShards % numberOfShards != 0) {
                e = ValidateActions.addValidationError(
                        "routing_num_shards must be a multiple of number_of_shards ("
                                + numberOfShards
                                + "), got "
                                + routingNumShards
                                + "; omit it for the default of a new index",
                        e);
            }
        }
        if (routingPartitionSize != null && routingPartitionSize < 1) {
            e = ValidateActions.addValidationError(
                    "routing_partition_size must be 1 or more, got " + routingPartitionSize, e);
        }
        ReleaseVersion version = null;
        if (indexVersion != null) {
            try {
                version = ReleaseVersion.parse("index_version", indexVersion);
                if (version.before(OLDEST_INDEX_VERSION)) {
                    e = ValidateActions.addValidationError(
                            "index_version must be " + OLDEST_INDEX_VERSION
                                    + " or later (older indices cannot be opened by Elasticsearch 9), got ["
                                    + indexVersion + "]",
                            e);
                }
            } catch (IllegalArgumentException ex) {
                e = ValidateActions.addValidationError(ex.getMessage(), e);
            }
        }
        if (routingFunction != null) {
            try {
                RoutingFunctionType function = RoutingFunctionType.fromJsonName(routingFunction);
                if (version != null && RoutingFunctionType.forRelease(version) != function) {
                    e = ValidateActions.addValidationError(
                            "routing_function ["
                                    + routingFunction
                                    + "] contradicts index_version ["
                                    + indexVersion
                                    + "]: indices created before "
                                    + RoutingFunctionType.MODULO_SINCE
                                    + " use [legacy], later ones [modulo]; give only one of them",
                            e);
                }
            } catch (IllegalArgumentException ex) {
                e = ValidateActions.addValidationError(ex.getMessage(), e);
            }
        }
        return RoutingCalcDoc.validateBatch(docs == null ? List.of() : docs, e);
    }

    /**
     * Primary shards.
     *
     * @return the {@code number_of_shards} of the body; 1 to {@value #MAX_NUMBER_OF_SHARDS} once validated,
     *     null if it was missing (then {@link #validate()} fails)
     */
    public @Nullable Integer numberOfShards() {
        return numberOfShards;
    }

    /**
     * The routing shards, or null for the default.
     *
     * @return the {@code routing_num_shards} of the body: a multiple of {@link #numberOfShards()} once
     *     validated; null for the value a new index with that many shards gets
     */
    @Nullable
    public Integer routingNumShards() {
        return routingNumShards;
    }

    /**
     * The partition size, or null for 1.
     *
     * @return the {@code routing_partition_size} of the body: how many shards one routing value spreads over
     */
    @Nullable
    public Integer routingPartitionSize() {
        return routingPartitionSize;
    }

    /**
     * The release that created the index, or null.
     *
     * @return the {@code index_version} of the body, such as {@code 8.19.0}, unparsed; null for this node's
     *     version
     */
    @Nullable
    public String indexVersion() {
        return indexVersion;
    }

    /**
     * {@code legacy}, {@code modulo} or null.
     *
     * @return the {@code routing_function} of the body, unparsed; null to follow {@link #indexVersion()}
     */
    @Nullable
    public String routingFunction() {
        return routingFunction;
    }

    /**
     * The docs to place.
     *
     * @return the {@code docs} of the body, in request order; unmodifiable; null if the body had none (then
     *     {@link #validate()} fails)
     */
    public @Nullable List<RoutingCalcDoc> docs() {
        return docs;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HypotheticalRoutingCalcRequest r
                && Objects.equals(numberOfShards, r.numberOfShards)
                && Objects.equals(routingNumShards, r.routingNumShards)
                && Objects.equals(routingPartitionSize, r.routingPartitionSize)
                && Objects.equals(indexVersion, r.indexVersion)
                && Objects.equals(routingFunction, r.routingFunction)
                && Objects.equals(docs, r.docs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                numberOfShards, routingNumShards, routingPartitionSize, indexVersion, routingFunction, docs);
    }

    @Override
    public String getDescription() {
        return "hypothetical routing calc for " + (docs == null ? 0 : docs.size()) + " docs";
    }
}
