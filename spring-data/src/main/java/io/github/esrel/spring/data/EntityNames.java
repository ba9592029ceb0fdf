package io.github.esrel.spring.data;

import java.util.Objects;
import org.springframework.data.elasticsearch.core.ElasticsearchOperations;
import org.springframework.data.elasticsearch.core.mapping.ElasticsearchPersistentEntity;
import org.springframework.data.elasticsearch.core.mapping.ElasticsearchPersistentProperty;

/** Where Spring Data keeps an entity: its index, its document id, the field a property is stored as. */
final class EntityNames {

    private final ElasticsearchOperations operations;

    EntityNames(ElasticsearchOperations operations) {
        this.operations = Objects.requireNonNull(operations, "operations cannot be null");
    }

    /** The index {@code save} writes entities of {@code type} to (its {@code @Document} index name, SpEL evaluated). */
    String indexName(Class<?> type) {
        return operations.getIndexCoordinatesFor(type).getIndexName();
    }

    /** The document id of an entity id, as Spring Data converts ids. */
    String id(Object id) {
        String converted =
                operations.getElasticsearchConverter().convertId(Objects.requireNonNull(id, "id cannot be null"));
        if (converted == null || converted.isEmpty()) {
            throw new IllegalArgumentException("the id [" + id + "] converts to no document id");
        }
        return converted;
    }

    /**
     * The field {@code key} of {@code type} is stored as: a property's field name ({@code @Field(name = ...)}), or
     * {@code key} itself when it is a field name.
     *
     * @throws IllegalStateException if {@code type} has neither
     */
    String fieldName(Class<?> type, String key) {
        ElasticsearchPersistentEntity<?> entity =
                operations.getElasticsearchConverter().getMappingContext().getRequiredPersistentEntity(type);
        ElasticsearchPersistentProperty property = entity.getPersistentProperty(key);
        if (property == null) {
            property = entity.getPersistentPropertyWithFieldName(key);
        }
        if (property == null) {
            throw new IllegalStateException("[" + key + "] is no property or field of " + type.getName()
                    + ": name the property that holds the parent's id");
        }
        return property.getFieldName();
    }
}
