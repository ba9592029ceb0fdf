package io.github.esrel.internal;

import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.json.stream.JsonGenerator;
import jakarta.json.stream.JsonParser;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.Objects;

/**
 * Maps values between esrel's JSON trees and the application's types with the application's own mapper, the one its
 * {@code ElasticsearchClient} was built with: the documents esrel reads and writes for the application look exactly as
 * those the application writes itself (its property naming, its modules, its dates). The default
 * {@code DocumentConverter} maps the application's documents with it; script parameters go through it too.
 *
 * <p>A {@link JacksonJsonpMapper} maps with its {@link ObjectMapper} directly, tree to value. Any other mapper
 * ({@code Jackson3JsonpMapper}, a JSON-B one, one of the application's own) maps through the JSON text,
 * with the mapper's own {@link JsonpMapper#serialize serialize} and {@link JsonpMapper#deserialize deserialize}:
 * what it cannot map (a {@code SimpleJsonpMapper} maps no classes of the application) fails with its reason.
 * Jackson 2 trees ({@link JsonNode} and its subclasses) need no mapper and are copied as they are.
 *
 * <p>Thread-safe. Internal: not part of esrel's API, may change without notice.
 */
public final class DocumentMapper {

    private final Mapping mapping;

    private DocumentMapper(Mapping mapping) {
        this.mapping = mapping;
    }

    /**
     * The mapper for the documents of an application whose client maps JSON with {@code mapper}.
     *
     * @throws NullPointerException if {@code mapper} is null
     */
    public static DocumentMapper of(JsonpMapper mapper) {
        Objects.requireNonNull(mapper, "mapper cannot be null");
        return new DocumentMapper(
                mapper instanceof JacksonJsonpMapper jackson ? new Jackson(jackson.objectMapper()) : new Jsonp(mapper));
    }

    /**
     * Maps a tree to {@code type}.
     *
     * @throws IllegalArgumentException if the mapper cannot, with its reason
     */
    public <T> T toValue(JsonNode tree, Class<T> type) {
        if (JsonNode.class.isAssignableFrom(type) && type.isInstance(tree)) {
            return type.cast(tree.deepCopy());
        }
        return mapping.map(tree, type);
    }

    /**
     * Maps a value to a tree ({@code null} to {@link com.fasterxml.jackson.databind.node.NullNode}).
     *
     * @throws IllegalArgumentException if the mapper cannot, with its reason
     */
    public JsonNode toTree(Object value) {
        if (value instanceof JsonNode tree) {
            return tree.deepCopy();
        }
        return mapping.tree(value);
    }

    /**
     * Maps a document to its source.
     *
     * @throws IllegalArgumentException if the mapper cannot, with its reason, or {@code value} is no JSON object
     */
    public ObjectNode toObject(Object value) {
        JsonNode tree = toTree(value);
        if (tree instanceof ObjectNode object) {
            return object;
        }
        throw new IllegalArgumentException("a document must serialize to a JSON object, got " + tree.getNodeType()
                + " from " + (value == null ? "null" : value.getClass().getName()));
    }

    @Override
    public String toString() {
        return "DocumentMapper{" + mapping.name() + '}';
    }

    /** How one kind of mapper maps; both fail with an {@link IllegalArgumentException} that gives the reason. */
    private interface Mapping {
        <T> T map(JsonNode tree, Class<T> type);

        JsonNode tree(Object value);

        /** The mapper's name, for messages. */
        String name();
    }

    /** A Jackson 2 mapper: tree to value directly. */
    private record Jackson(ObjectMapper mapper) implements Mapping {
        @Override
        public <T> T map(JsonNode tree, Class<T> type) {
            try {
                return mapper.treeToValue(tree, type);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(e.getOriginalMessage(), e);
            }
        }

        @Override
        public JsonNode tree(Object value) {
            return mapper.valueToTree(value);
        }

        @Override
        public String name() {
            return "Jackson 2 " + mapper.getClass().getName();
        }
    }

    /** Any other mapper: through the JSON text, with the mapper's own serialize and deserialize. */
    private record Jsonp(JsonpMapper mapper) implements Mapping {
        @Override
        public <T> T map(JsonNode tree, Class<T> type) {
            T value;
            try (JsonParser parser = mapper.jsonProvider().createParser(new StringReader(tree.toString()))) {
                value = mapper.deserialize(parser, type);
            } catch (RuntimeException e) {
                throw failure("cannot map JSON to " + type.getName(), e);
            }
            if (value == null && !tree.isNull()) {
                throw new IllegalArgumentException(name() + " mapped a JSON " + tree.getNodeType() + " to null");
            }
            return value;
        }

        @Override
        public JsonNode tree(Object value) {
            StringWriter text = new StringWriter();
            try (JsonGenerator generator = mapper.jsonProvider().createGenerator(text)) {
                mapper.serialize(value, generator);
            } catch (RuntimeException e) {
                throw failure(
                        "cannot write "
                                + (value == null ? "null" : value.getClass().getName()) + " as JSON",
                        e);
            }
            try {
                return JsonTrees.parse(text.toString());
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(name() + " wrote what is not JSON: " + e.getOriginalMessage(), e);
            }
        }

        private IllegalArgumentException failure(String what, RuntimeException e) {
            if (e instanceof IllegalArgumentException
                    && e.getMessage() != null
                    && e.getMessage().startsWith(name())) {
                return (IllegalArgumentException) e;
            }
            return new IllegalArgumentException(what + " with the client's " + name() + ": " + e.getMessage(), e);
        }

        @Override
        public String name() {
            return mapper.getClass().getSimpleName();
        }
    }
}
