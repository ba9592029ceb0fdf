/**
 * esrel for Spring Data Elasticsearch entities: {@link io.github.esrel.spring.data.SpringDataDocumentConverter} has
 * {@code Occ}, {@code BulkUpdate}, joins and materialized views read and write {@code @Document} entities exactly as
 * Spring Data does; {@link io.github.esrel.spring.data.EsrelRepository} gives a Spring Data repository esrel's
 * retried, combined updates and the joins of an {@link io.github.esrel.spring.data.EntityRelation}.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/spring.md#spring-data-elasticsearch">Spring Boot and Spring Data: Spring Data Elasticsearch</a>.
 */
@NullMarked
package io.github.esrel.spring.data;

import org.jspecify.annotations.NullMarked;
