/**
 * What differs between Elasticsearch server lines, behind one seam: each class here has one variant per line in
 * {@code src/main/compat/}, and the build picks the variants of the line it builds for.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/versions.md">Versions and upgrading</a>.
 */
@NullMarked
package io.github.esrel.plugin.compat;

import org.jspecify.annotations.NullMarked;
