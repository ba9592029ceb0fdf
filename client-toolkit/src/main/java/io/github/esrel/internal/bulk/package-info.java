/**
 * The bulk engine of conditional writes that OCC's bulk updates, propagation, file-tree renames and view rebuilds
 * share: {@link io.github.esrel.internal.bulk.ConditionalWrites}. Not part of esrel's API (see
 * {@link io.github.esrel.internal}).
 */
@NullMarked
package io.github.esrel.internal.bulk;

import org.jspecify.annotations.NullMarked;
