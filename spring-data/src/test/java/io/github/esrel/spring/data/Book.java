package io.github.esrel.spring.data;

import org.springframework.data.annotation.Id;
import org.springframework.data.elasticsearch.annotations.Document;
import org.springframework.data.elasticsearch.annotations.Field;
import org.springframework.data.elasticsearch.annotations.FieldType;

/** A child entity: {@code authorId} holds its author's id, stored as {@code author_id}. */
@Document(indexName = "books")
public record Book(
        @Id String id,
        @Field(type = FieldType.Text) String title,
        @Field(name = "author_id", type = FieldType.Keyword) String authorId,
        @Field(type = FieldType.Integer) int likes) {}
