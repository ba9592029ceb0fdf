/**
 * How an entry point maps the application's documents, shared by the capabilities that map them (OCC, joins):
 * {@link io.github.esrel.doc.internal.SourceConverter}. Not part of esrel's API, like {@link io.github.esrel.internal}:
 * public only because Java has no visibility between packages of one library, and left out of the published Javadoc.
 */
@NullMarked
package io.github.esrel.doc.internal;

import org.jspecify.annotations.NullMarked;
