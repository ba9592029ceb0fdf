package io.github.esrel.doc.internal;

import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.JsonpMapper;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocumentConverter;
import io.github.esrel.internal.DocumentMapper;
import io.github.esrel.internal.JsonTrees;
import org.jspecify.annotations.Nullable;

/**
 * How an entry point maps the application's documents to the caller's types and back: with the
 * {@link DocumentConverter} it was given (Spring Data's, say), else with the JSON mapper of the application's client
 * ({@link DocumentConverter#of}). {@code Occ} reads and writes sources with it, {@code Join} maps the sources of hits;
 * what is no document (a script parameter) goes through the client's mapper whatever the converter.
 *
 * <p>It fails as the converter does, with an {@link IllegalArgumentException} that gives the reason: each capability
 * names the document and the type in its own exception.
 *
 * <p>Thread-safe, as every {@link DocumentConverter} must be. Internal: not part of esrel's API.
 */
public final class SourceConverter {

    private final JsonpMapper client;
    /** The entry point's own converter; {@code null}: the client's mapper maps the documents. */
    private final @Nullable DocumentConverter given;

    private final DocumentConverter documents;
    /** The client's mapper, for what is no document. */
    private final DocumentMapper values;

    private SourceConverter(JsonpMapper client, @Nullable DocumentConverter given) {
        this.client = client;
        this.given = given;
        this.documents = given != null ? given : DocumentConverter.of(client);
        this.values = DocumentMapper.of(client);
    }

    /**
     * The converter of an entry point.
     *
     * @param client the JSON mapper of the application's client, {@code client._jsonpMapper()}
     * @param given the converter the entry point was given, or {@code null} for the client's mapper
     * @return the converter
     * @throws NullPointerException if {@code client} is {@code null}
     */
    public static SourceConverter of(JsonpMapper client, @Nullable DocumentConverter given) {
        return new SourceConverter(client, given);
    }

    /**
     * Whether the entry point's own converter, rather than the client, maps documents of {@code type}: then a typed
     * search is made for JSON and its hits converted ({@link #read(JsonData, Class, DocMeta)}).
     *
     * @param type the caller's type
     * @return true with a converter given, for any type but the client's own {@link JsonData} and {@link Void}
     */
    public boolean converts(Class<?> type) {
        return given != null && type != JsonData.class && type != Void.class;
    }

    /**
     * Maps a stored source to the caller's type.
     *
     * @throws IllegalArgumentException if the source cannot be mapped, with the reason
     */
    public <T> T read(ObjectNode source, Class<T> type, DocMeta meta) {
        return documents.read(source, type, meta);
    }

    /**
     * Maps a source as the client parsed it (a hit's) to the caller's type: straight from what the client parsed with
     * the client's mapper, else through the entry point's converter.
     *
     * @throws IllegalArgumentException if the source cannot be mapped, with the reason
     * @throws jakarta.json.JsonException if the client's mapper cannot map it
     */
    public <T> T read(JsonData source, Class<T> type, DocMeta meta) {
        if (given == null) {
            return source.to(type, client);
        }
        JsonNode tree;
        try {
            tree = JsonTrees.parse(source.toJson(client).toString());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e.getOriginalMessage(), e);
        }
        if (!(tree instanceof ObjectNode object)) {
            throw new IllegalArgumentException("the source is not a JSON object");
        }
        return given.read(object, type, meta);
    }

    /**
     * The source to store for a document.
     *
     * @throws IllegalArgumentException if {@code value} cannot be written, or not as a JSON object
     */
    public ObjectNode write(Object value) {
        return documents.write(value);
    }

    /** {@code value} with the versions of the write that stored it (see {@link DocumentConverter#withMeta}). */
    public <T> @Nullable T withMeta(@Nullable T value, DocMeta meta) {
        return value == null ? null : documents.withMeta(value, meta);
    }

    /** The routing {@code value} declares for itself, or {@code null} (see {@link DocumentConverter#routing}). */
    public @Nullable String routing(Object value) {
        return documents.routing(value);
    }

    /**
     * What is no document (a script parameter) as the client's mapper writes it.
     *
     * @throws IllegalArgumentException if the mapper cannot, with its reason
     */
    public JsonNode toTree(Object value) {
        return values.toTree(value);
    }

    @Override
    public String toString() {
        return "SourceConverter{" + documents + '}';
    }
}
