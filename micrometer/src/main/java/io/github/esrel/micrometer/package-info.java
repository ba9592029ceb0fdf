/**
 * Micrometer meters and observations for esrel: {@link io.github.esrel.micrometer.EsrelMicrometer} gives listeners for
 * {@code Occ}, {@code TreeLocks}, {@code Propagator} and {@code MaterializedView} that record low-cardinality meters
 * and, given an {@code ObservationRegistry}, an observation per call that spans several requests.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/metrics.md">Metrics</a>.
 */
@NullMarked
package io.github.esrel.micrometer;

import org.jspecify.annotations.NullMarked;
