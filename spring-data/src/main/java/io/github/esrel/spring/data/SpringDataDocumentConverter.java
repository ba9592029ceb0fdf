package io.github.esrel.spring.data;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocMeta;
import io.github.esrel.doc.DocumentConverter;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.data.elasticsearch.annotations.Document;
import org.springframework.data.elasticsearch.client.elc.EntityAsMap;
import org.springframework.data.elasticsearch.core.ElasticsearchOperations;
import org.springframework.data.elasticsearch.core.EntityOperations;
import org.springframework.data.elasticsearch.core.IndexedObjectInformation;
import org.springframework.data.elasticsearch.core.convert.ElasticsearchConverter;
import org.springframework.data.elasticsearch.core.routing.DefaultRoutingResolver;
import org.springframework.data.elasticsearch.core.routing.RoutingResolver;

/**
 * esrel's {@link DocumentConverter} for Spring Data Elasticsearch entities: a class annotated with {@link Document
 * @Document} is read and written by Spring Data's {@link ElasticsearchConverter}, exactly as
 * {@link ElasticsearchOperations#save} and {@code get} do; every other type (records and classes of the application's
 * that are no entities, {@code ObjectNode}) by the client's own JSON mapper, as without Spring Data.
 *
 * <pre>{@code
 * SpringDataDocumentConverter entities = SpringDataDocumentConverter.of(operations, es);
 * Occ occ = Occ.of(b -> b.client(es).documentConverter(entities));
 * occ.update("designs", "d-1", Design.class, Design::vote);   // stored as operations.save(design) stores it
 * }</pre>
 *
 * <p>What an entity becomes, and back:
 * <ul>
 *   <li>Writing: Spring Data's {@code mapObject} (field names from {@code @Field}, date formats, custom conversions,
 *       the {@code _class} type hint, the {@code @Id} and {@code @Version} properties; never the
 *       {@code SeqNoPrimaryTerm} property, {@code @Transient} or {@code @ReadOnlyProperty} ones), serialized by the
 *       client's JSON mapper: the bytes {@code save} sends, since Spring Data hands that same map to that same
 *       mapper.</li>
 *   <li>Reading: the source mapped to a map by the client's mapper, with the document's index, id and versions beside
 *       it, read by Spring Data's converter and then completed as Spring Data completes what it reads: the {@code @Id}
 *       from the document's id, {@code @Version} from {@code _version}, the {@code SeqNoPrimaryTerm} property from
 *       {@code _seq_no} and {@code _primary_term} (when the read knew them: a realtime get, not a search hit), an
 *       {@code @IndexedIndexName} property from the index.</li>
 *   <li>After a write, the value esrel hands back gets the write's versions the same way ({@link #withMeta}), as
 *       {@code save} fills them into the entity it returns.</li>
 *   <li>{@link #routing}: the value's {@code @Routing}, resolved as {@code save} resolves it
 *       ({@link ElasticsearchOperations#getEntityRouting}); esrel refuses to write an entity whose routing differs
 *       from the routing the call addresses.</li>
 * </ul>
 * What Spring Data's template does around a write is not done here: entity callbacks ({@code BeforeConvertCallback},
 * auditing's {@code @LastModifiedDate}) and application events. Fields an entity does not map stay as stored: esrel
 * writes an entity's changes onto the stored source ({@code Occ}, "Fields your class does not map").
 *
 * <p>Thread-safe, as Spring Data's converter is.
 */
public final class SpringDataDocumentConverter implements DocumentConverter {

    private final ElasticsearchOperations operations;
    private final ElasticsearchConverter converter;
    private final EntityOperations entities;
    private final RoutingResolver routingResolver;
    /** The client's mapper: the JSON of entities (as Spring Data's requests have it) and every other type. */
    private final DocumentConverter client;

    private SpringDataDocumentConverter(ElasticsearchOperations operations, DocumentConverter client) {
        this.operations = operations;
        this.converter = operations.getElasticsearchConverter();
        this.entities = new EntityOperations(converter.getMappingContext());
        this.routingResolver = new DefaultRoutingResolver(converter.getMappingContext());
        this.client = client;
    }

    /**
     * The converter of Spring Data's {@code operations}, for documents read and written through {@code client}.
     *
     * @param operations Spring Data's template: its converter maps entities and its routing resolver routes them
     * @param client the client Spring Data's template and esrel send requests with (in a Spring Boot application,
     *     the {@code ElasticsearchClient} bean): its JSON mapper writes what the converter makes of an entity, and maps
     *     every type that is no entity
     * @return the converter
     * @throws NullPointerException if an argument is {@code null}
     */
    public static SpringDataDocumentConverter of(ElasticsearchOperations operations, ElasticsearchClient client) {
        Objects.requireNonNull(operations, "operations cannot be null");
        Objects.requireNonNull(client, "client cannot be null");
        return new SpringDataDocumentConverter(operations, DocumentConverter.of(client._jsonpMapper()));
    }

    /**
     * Whether Spring Data maps {@code type}: it is annotated with {@code @Document} (directly, on a superclass or as a
     * meta-annotation).
     *
     * @param type the class of a document
     * @return true for a Spring Data Elasticsearch entity
     */
    public boolean isEntity(Class<?> type) {
        return type != null
                && !JsonNode.class.isAssignableFrom(type)
                && AnnotatedElementUtils.hasAnnotation(type, Document.class);
    }

    @Override
    public <T> T read(ObjectNode source, Class<T> type, DocMeta meta) {
        if (!isEntity(type)) {
            return client.read(source, type, meta);
        }
        // As Spring Data's own get: the client's mapper makes the source a map (client.get(..., EntityAsMap.class)),
        // DocumentAdapters.from(GetResult) sets what Elasticsearch keeps beside it, the converter reads, and
        // ReadDocumentCallback completes the entity (updateIndexedObject).
        org.springframework.data.elasticsearch.core.document.Document document =
                org.springframework.data.elasticsearch.core.document.Document.from(
                        client.read(source, EntityAsMap.class, meta));
        document.setIndex(meta.index());
        document.setId(meta.id());
        if (meta.version() != DocMeta.UNKNOWN) {
            document.setVersion(meta.version());
        }
        if (meta.hasSeqNo()) {
            document.setSeqNo(meta.seqNo());
            document.setPrimaryTerm(meta.primaryTerm());
        }
        T entity;
        try {
            entity = converter.read(type, document);
        } catch (RuntimeException e) {
            if (e instanceof IllegalArgumentException) {
                throw e;
            }
            throw new IllegalArgumentException(
                    "Spring Data's converter cannot read it as " + type.getName() + ": " + e.getMessage(), e);
        }
        if (entity == null) {
            throw new IllegalArgumentException("Spring Data's converter read null as " + type.getName());
        }
        return stamp(entity, meta);
    }

    @Override
    public ObjectNode write(Object value) {
        Objects.requireNonNull(value, "value cannot be null");
        if (!isEntity(value.getClass())) {
            return client.write(value);
        }
        org.springframework.data.elasticsearch.core.document.Document document;
        try {
            document = converter.mapObject(value);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "Spring Data's converter cannot write " + value.getClass().getName() + ": " + e.getMessage(), e);
        }
        // The map Spring Data's index request hands the client, as the client's mapper serializes it.
        return client.write(document);
    }

    @Override
    public <T> T withMeta(T value, DocMeta meta) {
        return value != null && isEntity(value.getClass()) ? stamp(value, meta) : value;
    }

    @Override
    public @Nullable String routing(Object value) {
        return value != null && isEntity(value.getClass()) ? operations.getEntityRouting(value) : null;
    }

    /** The entity with the id, index and versions of {@code meta}, as Spring Data fills them after a get or a save. */
    private <T> T stamp(T entity, DocMeta meta) {
        return entities.updateIndexedObject(
                entity,
                new IndexedObjectInformation(
                        meta.id(),
                        meta.index(),
                        meta.hasSeqNo() ? meta.seqNo() : null,
                        meta.hasSeqNo() ? meta.primaryTerm() : null,
                        meta.version() != DocMeta.UNKNOWN ? meta.version() : null),
                converter,
                routingResolver);
    }

    @Override
    public String toString() {
        return "SpringDataDocumentConverter{" + converter.getClass().getSimpleName() + ", others: " + client + '}';
    }
}
