/**
 * esrel: relationships and concurrency for Elasticsearch. The capabilities live in their own packages
 * ({@code routing}, {@code lock}, {@code fs}, {@code occ}, {@code join}, {@code denorm}, {@code view}); this
 * package holds what they share: {@link io.github.esrel.EsrelException}, the base of their exceptions.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/README.md">The guide</a>.
 */
@NullMarked
package io.github.esrel;

import org.jspecify.annotations.NullMarked;
