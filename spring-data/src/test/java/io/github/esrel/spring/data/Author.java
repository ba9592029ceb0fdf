package io.github.esrel.spring.data;

import org.springframework.data.annotation.Id;
import org.springframework.data.elasticsearch.annotations.Document;
import org.springframework.data.elasticsearch.annotations.Field;
import org.springframework.data.elasticsearch.annotations.FieldType;

/** A parent entity: an immutable record. */
@Document(indexName = "authors")
public record Author(
        @Id String id,
        @Field(name = "full_name", type = FieldType.Keyword) String name,
        @Field(type = FieldType.Keyword) String country) {}
