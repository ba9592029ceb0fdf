/**
 * Materialized views: {@link io.github.esrel.view.MaterializedView} keeps one view document per source document with
 * fields of its parent, rebuilt whole and written with an external version drawn between two consistent reads, so that
 * a stale rebuild never overwrites a newer one; intents recorded before each source write let {@code repair()} finish
 * the rebuilds a crash left owed.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/relationships.md#materialized-views">Joins, denormalized propagation and views</a>.
 */
@NullMarked
package io.github.esrel.view;

import org.jspecify.annotations.NullMarked;
