/**
 * Helpers that esrel's own packages share: not part of esrel's API. They are public only because Java has no
 * visibility between packages of one library; they may change or disappear in any release, and the Javadoc of
 * the published jars leaves them out.
 */
@NullMarked
package io.github.esrel.internal;

import org.jspecify.annotations.NullMarked;
