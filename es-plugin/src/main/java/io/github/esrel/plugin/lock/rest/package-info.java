/**
 * The REST handlers of {@code _treelock}: one per endpoint, parsing the request and handing it to its action.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/tree-locks.md#rest-api">Tree locks: REST API</a>.
 */
@NullMarked
package io.github.esrel.plugin.lock.rest;

import org.jspecify.annotations.NullMarked;
