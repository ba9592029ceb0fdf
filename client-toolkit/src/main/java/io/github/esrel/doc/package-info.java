/**
 * Documents as every esrel capability addresses and reads them: the address of one document
 * ({@link io.github.esrel.doc.DocRef}: index, id, routing), and the stream of every document matching a query
 * ({@link io.github.esrel.doc.DocStream}: point in time + {@code search_after}, in constant memory).
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/optimistic-concurrency.md#addressing-documents">Optimistic concurrency: addressing documents</a>.
 */
@NullMarked
package io.github.esrel.doc;

import org.jspecify.annotations.NullMarked;
