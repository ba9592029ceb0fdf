package io.github.esrel.doc;

import co.elastic.clients.json.JsonpMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.DocumentMapper;
import org.jspecify.annotations.Nullable;

/**
 * How the application's documents become the JSON esrel stores, and back. By default esrel maps them with the JSON
 * mapper of the application's {@code ElasticsearchClient} ({@link #of(JsonpMapper)}), so that what esrel writes looks
 * as what the application writes itself. An application whose documents are shaped by something else plugs that in
 * here: {@code esrel-spring-data} maps Spring Data Elasticsearch entities with Spring Data's
 * {@code ElasticsearchConverter} (field names from {@code @Field}, date formats, the {@code _class} type hint, the
 * {@code @Id}, {@code @Version}, {@code SeqNoPrimaryTerm} and {@code @Routing} properties).
 *
 * <p>esrel never stores what {@link #write} leaves out of a document it read: a read-modify-write keeps every stored
 * field that {@code read} followed by {@code write} does not give back (see {@code Occ}, "Fields your class does not
 * map"). A converter therefore need not (and should not) carry unknown fields itself.
 *
 * <p>Implementations must be thread-safe: one converter serves every thread of an entry point.
 */
public interface DocumentConverter {

    /**
     * Maps a stored source to the caller's type.
     *
     * @param <T> the caller's document type
     * @param source the {@code _source} as stored; the converter must not change it
     * @param type the class to map to
     * @param meta where the document is and, where known, its versions
     * @return the value, not {@code null}
     * @throws IllegalArgumentException if the source cannot be mapped to {@code type}, with the reason
     */
    <T> T read(ObjectNode source, Class<T> type, DocMeta meta);

    /**
     * The source to store for {@code value}.
     *
     * @param value the caller's document, not {@code null}
     * @return a new JSON object the caller may change
     * @throws IllegalArgumentException if {@code value} cannot be written, or not as a JSON object
     */
    ObjectNode write(Object value);

    /**
     * {@code value} with the versions of the write that just stored it: for a document model that keeps versions in
     * properties of the value. The default returns {@code value} unchanged.
     *
     * @param <T> the caller's document type
     * @param value the value esrel stored (and hands back to the caller in its outcome)
     * @param meta the stored document's index, id, routing and versions
     * @return {@code value}, or a copy with its version properties set
     */
    default <T> T withMeta(T value, DocMeta meta) {
        return value;
    }

    /**
     * The routing value {@code value} declares for itself (Spring Data's {@code @Routing}), or {@code null} when it
     * declares none. esrel refuses to write a value whose declared routing differs from the routing the call
     * addresses (it would land on another shard than the copy it read); the default declares none.
     *
     * @param value the caller's document
     * @return the routing value, or {@code null}
     */
    default @Nullable String routing(Object value) {
        return null;
    }

    /**
     * The converter of an application whose documents are what its client's mapper makes of them: a
     * {@code JacksonJsonpMapper}'s {@code ObjectMapper} (naming strategy and modules included), a
     * {@code Jackson3JsonpMapper}, a JSON-B one, or any mapper of the application's (a {@code SimpleJsonpMapper} maps
     * none of the application's classes: use {@code ObjectNode} with it).
     *
     * @param mapper the client's mapper, {@code client._jsonpMapper()}
     * @return the converter
     * @throws NullPointerException if {@code mapper} is {@code null}
     */
    static DocumentConverter of(JsonpMapper mapper) {
        DocumentMapper documents = DocumentMapper.of(mapper);
        return new DocumentConverter() {
            @Override
            public <T> T read(ObjectNode source, Class<T> type, DocMeta meta) {
                return documents.toValue(source, type); // the metadata plays no part
            }

            @Override
            public ObjectNode write(Object value) {
                return documents.toObject(value);
            }

            @Override
            public String toString() {
                return documents.toString();
            }
        };
    }
}
