package io.github.esrel.plugin.routing.action;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.elasticsearch.action.ActionRequest;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.action.IndicesRequest;
import org.elasticsearch.action.ValidateActions;
import org.elasticsearch.action.support.IndicesOptions;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.xcontent.XContentParser;
import org.jspecify.annotations.Nullable;

/**
 * Which shard documents of an existing index (or alias to one index) go to. Three forms:
 * <ul>
 *   <li>{@link #doc}: one id, with an optional routing;</li>
 *   <li>{@link #search}: a routing value only, answering which shards a search with it visits;</li>
 *   <li>{@link #batch}: many docs at once, with distribution, skew and warnings.</li>
 * </ul>
 * It is an {@link IndicesRequest}, so security authorizes the call against the named index.
 */
public final class RoutingCalcRequest extends ActionRequest implements IndicesRequest.Replaceable {

    /** Names, aliases and patterns are resolved like a search; closed indices still have routing metadata. */
    static final IndicesOptions INDICES_OPTIONS = IndicesOptions.strictExpandOpen();

    private String[] indices;

    @Nullable
    private final String id;

    @Nullable
    private final String routing;

    @Nullable
    private final List<RoutingCalcDoc> docs;

    /**
     * The general form, as the REST layer builds it; {@link #validate()} checks the combination.
     *
     * @param indices the index expression (usually one name)
     * @param id      the id of a single document, or null
     * @param routing a routing value, or null (empty counts as null)
     * @param docs    the docs of a batch, or null for the single forms
     */
    public RoutingCalcRequest(
            String[] indices, @Nullable String id, @Nullable String routing, @Nullable List<RoutingCalcDoc> docs) {
        this.indices = Objects.requireNonNull(indices, "indices cannot be null");
        this.id = id;
        this.routing = RoutingCalcDoc.normalizeRouting(routing);
        this.docs = docs == null ? null : List.copyOf(docs);
    }

    /**
     * The shard of one document: {@code GET /{index}/_routing_calc?id=...[&routing=...]}.
     *
     * @param index   the index or alias
     * @param id      the document id
     * @param routing the document's custom routing, or null (empty counts as null) to route by id or by the
     *                alias's index routing
     * @return the request
     * @throws NullPointerException if {@code index} or {@code id} is null
     */
    public static RoutingCalcRequest doc(String index, String id, @Nullable String routing) {
        return new RoutingCalcRequest(
                new String[] {index}, Objects.requireNonNull(id, "id cannot be null"), routing, null);
    }

    /**
     * The shards a search with this routing visits (and the shard of documents with it, unless partitioned):
     * {@code GET /{index}/_routing_calc?routing=...}.
     *
     * @param index   the index or alias
     * @param routing the routing value; a search splits it at commas
     * @return the request
     * @throws NullPointerException if {@code index} or {@code routing} is null
     */
    public static RoutingCalcRequest search(String index, String routing) {
        return new RoutingCalcRequest(
                new String[] {index}, null, Objects.requireNonNull(routing, "routing cannot be null"), null);
    }

    /**
     * The shards of many documents: {@code POST /{index}/_routing_calc {"docs": [...]}}.
     *
     * @param index the index or alias
     * @param docs  the documents, answered in this order; copied
     * @return the request
     * @throws NullPointerException if {@code index} or {@code docs} is null
     */
    public static RoutingCalcRequest batch(String index, List<RoutingCalcDoc> docs) {
        return new RoutingCalcRequest(
                new String[] {index}, null, null, Objects.requireNonNull(docs, "docs cannot be null"));
    }

    /**
     * Reads a batch body {@code {"docs": [...]}}.
     *
     * @param indices the index expression from the URL
     * @param parser  the parser over the request body
     * @param maxDocs refuse the body as soon as it holds more docs than this
     * @return the batch request, not yet validated
     * @throws IOException if the body cannot be read; an {@code XContentParseException} (400) for malformed
     *     JSON, wrong types, unknown fields or a doc without an id
     * @throws IllegalArgumentException if the body has no {@code docs} or more than {@code maxDocs} of them
     */
    public static RoutingCalcRequest fromXContent(String[] indices, XContentParser parser, int maxDocs)
            throws IOException {
        BodyParser.startObject(parser, "{\"docs\": [{\"id\": \"1\", \"routing\": \"a\"}]}");
        List<RoutingCalcDoc> docs = null;
        while (parser.nextToken() != XContentParser.Token.END_OBJECT) {
            String field = parser.currentName();
            parser.nextToken();
            if ("docs".equals(field)) {
                docs = BodyParser.docs(parser, maxDocs);
            } else {
                throw BodyParser.unknownField(parser, field, "[docs]");
            }
        }
        BodyParser.endOfBody(parser);
        if (docs == null) {
            throw new IllegalArgumentException(
                    "request body must contain [docs], e.g. {\"docs\": [{\"id\": \"1\", \"routing\": \"a\"}]}");
        }
        return new RoutingCalcRequest(indices, null, null, docs);
    }

    /**
     * Reads a request sent by another node (see {@link #writeTo}).
     *
     * @param in the transport stream
     * @throws IOException if the stream cannot be read
     */
    public RoutingCalcRequest(StreamInput in) throws IOException {
        super(in);
        indices = in.readStringArray();
        id = in.readOptionalString();
        routing = in.readOptionalString();
        docs = in.readOptionalCollectionAsList(RoutingCalcDoc::readFrom);
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeStringArray(indices);
        out.writeOptionalString(id);
        out.writeOptionalString(routing);
        out.writeOptionalCollection(docs);
    }

    @Override
    public @Nullable ActionRequestValidationException validate() {
        ActionRequestValidationException e = null;
        if (indices.length == 0 || Arrays.stream(indices).anyMatch(i -> i == null || i.isEmpty())) {
            e = ValidateActions.addValidationError("index is required, e.g. GET /my-index/_routing_calc?id=1", e);
        }
        if (docs != null) {
            if (id != null || routing != null) {
                e = ValidateActions.addValidationError(
                        "the id and routing parameters cannot be combined with a body; put them into [docs] entries",
                        e);
            }
            e = RoutingCalcDoc.validateBatch(docs, e);
        } else if (id != null) {
            String problem = RoutingCalcDoc.idProblem(id);
            if (problem != null) {
                e = ValidateActions.addValidationError(problem, e);
            }
        }
        // Neither id nor routing is checked by the calculator: an alias's search routing can stand in.
        return e;
    }

    @Override
    public String[] indices() {
        return indices;
    }

    @Override
    public RoutingCalcRequest indices(String... indices) {
        this.indices = indices;
        return this;
    }

    @Override
    public IndicesOptions indicesOptions() {
        return INDICES_OPTIONS;
    }

    /**
     * The single document's id, or null.
     *
     * @return the {@code id} query parameter; null for the routing-only and batch forms
     */
    @Nullable
    public String id() {
        return id;
    }

    /**
     * The routing parameter, or null.
     *
     * @return the {@code routing} query parameter, never empty; null if absent or empty
     */
    public @Nullable String routing() {
        return routing;
    }

    /**
     * The batch, or null for the single forms.
     *
     * @return the {@code docs} of the body, in request order; unmodifiable
     */
    @Nullable
    public List<RoutingCalcDoc> docs() {
        return docs;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RoutingCalcRequest r
                && Arrays.equals(indices, r.indices)
                && Objects.equals(id, r.id)
                && Objects.equals(routing, r.routing)
                && Objects.equals(docs, r.docs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(indices), id, routing, docs);
    }

    @Override
    public String getDescription() {
        return "routing calc for " + Arrays.toString(indices) + (docs != null ? " (" + docs.size() + " docs)" : "");
    }
}
