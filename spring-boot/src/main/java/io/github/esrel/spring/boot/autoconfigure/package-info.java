/**
 * Spring Boot auto-configuration for esrel: {@code Occ}, {@code ExternalVersions}, {@code RoutingClient} and
 * {@code TreeLocks} beans on the application's {@code ElasticsearchClient}, {@code esrel.*} properties, customizers,
 * Spring's exceptions, the {@code esrel} health contributor and the meters; each bean backs off for one of the
 * application's.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/spring.md">Spring Boot and Spring Data</a>.
 */
@NullMarked
package io.github.esrel.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
