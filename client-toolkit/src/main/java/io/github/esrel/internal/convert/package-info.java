/**
 * How an entry point maps the application's documents, for every capability that maps them:
 * {@link io.github.esrel.internal.convert.SourceConverter}. Not part of esrel's API (see
 * {@link io.github.esrel.internal}).
 */
package io.github.esrel.internal.convert;
