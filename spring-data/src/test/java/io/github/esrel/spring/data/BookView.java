package io.github.esrel.spring.data;

import org.springframework.data.annotation.Id;
import org.springframework.data.elasticsearch.annotations.Document;
import org.springframework.data.elasticsearch.annotations.Field;
import org.springframework.data.elasticsearch.annotations.FieldType;

/** A view document composed of a book and its author, itself a Spring Data entity. */
@Document(indexName = "book-views")
public record BookView(
        @Id String id,
        @Field(name = "book_title", type = FieldType.Text) String title,

        @Field(name = "author_name", type = FieldType.Keyword)
        String authorName) {}
