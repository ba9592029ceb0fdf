/**
 * Optimistic concurrency: {@link io.github.esrel.occ.Occ} reads a document, applies the caller's function and writes
 * the result only if nobody changed the document in between, retrying on conflict; calls on one hot document are
 * combined into one write, {@link io.github.esrel.occ.BulkUpdate} does the same for many documents, and
 * {@link io.github.esrel.occ.ExternalVersions} writes versions of another system. No update is lost without the caller
 * being told, and a write whose answer was lost is reported {@code UNKNOWN}, never applied twice.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/optimistic-concurrency.md">Optimistic concurrency</a>.
 */
@NullMarked
package io.github.esrel.occ;

import org.jspecify.annotations.NullMarked;
