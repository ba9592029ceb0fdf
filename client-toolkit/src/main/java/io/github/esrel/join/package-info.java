/**
 * Relationships at query time: application-side joins ({@link io.github.esrel.join.Join}, seed 000
 * §1.1 and seed 003's scalability trap) and field collapsing
 * ({@link io.github.esrel.join.Grouping}, seed 000 §1.3).
 *
 * <p>A join runs one query for the parents' keys and one {@code terms} query for their children,
 * batched to the child index's {@code index.max_terms_count}, and returns typed
 * {@link io.github.esrel.join.Pair}s with the round trips it made. It reads at most a fixed number
 * of parents per call and, past that, answers with a result that says to denormalize instead.
 * Grouping returns the top documents per value of a field, groups ordered by their best score, as
 * typed {@link io.github.esrel.join.Group}s, from {@code collapse} or from the seed's
 * {@code terms} + {@code max(_score)} + {@code top_hits} form.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/relationships.md#joins">Joins, denormalized propagation and views</a>.
 */
@NullMarked
package io.github.esrel.join;

import org.jspecify.annotations.NullMarked;
