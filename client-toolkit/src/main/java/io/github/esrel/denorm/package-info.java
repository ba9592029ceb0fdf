/**
 * Denormalized propagation: a {@link io.github.esrel.denorm.Relation} declares which parent fields its children carry, and a
 * {@link io.github.esrel.denorm.Propagator} rewrites every child of a changed parent, each write conditional on the
 * child's {@code _seq_no} so that a concurrent edit of the child is never overwritten. Jobs stream the children with a
 * point in time, keep checkpoints and resume after a crash.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/relationships.md#denormalized-propagation">Joins, denormalized propagation and views</a>.
 */
@NullMarked
package io.github.esrel.denorm;

import org.jspecify.annotations.NullMarked;
