/**
 * The address of a document ({@link io.github.esrel.doc.DocRef}: index, id, routing), shared by every esrel
 * capability that addresses single documents.
 */
package io.github.esrel.doc;
