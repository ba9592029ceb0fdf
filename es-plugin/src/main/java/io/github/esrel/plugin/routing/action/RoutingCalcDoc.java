package io.github.esrel.plugin.routing.action;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.action.ValidateActions;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.common.io.stream.Writeable;
import org.jspecify.annotations.Nullable;

/**
 * One document of a batch: its id and the routing it would be indexed with.
 *
 * @param id      the document id
 * @param routing the custom routing, or null to route by id; an empty routing counts as none, as it does
 *                when Elasticsearch indexes a document
 */
public record RoutingCalcDoc(String id, @Nullable String routing) implements Writeable {

    /** Elasticsearch refuses longer ids when indexing, so no such document can exist. */
    static final int MAX_ID_BYTES = 512;

    /** Normalises an empty {@code routing} to null, as Elasticsearch does when indexing; the id is not checked here. */
    public RoutingCalcDoc {
        routing = normalizeRouting(routing);
    }

    /**
     * Reads what {@link #writeTo} wrote.
     *
     * @param in the transport stream
     * @return the document read
     * @throws IOException if the stream cannot be read
     */
    public static RoutingCalcDoc readFrom(StreamInput in) throws IOException {
        return new RoutingCalcDoc(in.readString(), in.readOptionalString());
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeString(id);
        out.writeOptionalString(routing);
    }

    /** Empty routing means "no routing", as in Elasticsearch's index and get requests. */
    static @Nullable String normalizeRouting(@Nullable String routing) {
        return routing == null || routing.isEmpty() ? null : routing;
    }

    /** The problem with an id, or null if it is a possible document id. */
    static @Nullable String idProblem(@Nullable String id) {
        if (id == null) {
            return "id is required";
        }
        if (id.isEmpty()) {
            return "id must not be empty";
        }
        int bytes = id.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_ID_BYTES) {
            return "id [" + shorten(id) + "] is too long, must be no longer than " + MAX_ID_BYTES + " bytes but was: "
                    + bytes;
        }
        return null;
    }

    /**
     * Adds what is wrong with a batch to {@code e}: no docs at all, or the first doc whose id no document can
     * have (one is enough to fix the client; a 100k batch must not yield 100k messages).
     */
    static @Nullable ActionRequestValidationException validateBatch(
            List<RoutingCalcDoc> docs, @Nullable ActionRequestValidationException e) {
        if (docs.isEmpty()) {
            return ValidateActions.addValidationError("docs must not be empty; give at least one {\"id\": ...}", e);
        }
        for (int i = 0; i < docs.size(); i++) {
            String problem = idProblem(docs.get(i).id());
            if (problem != null) {
                return ValidateActions.addValidationError("docs[" + i + "]: " + problem, e);
            }
        }
        return e;
    }

    private static String shorten(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
