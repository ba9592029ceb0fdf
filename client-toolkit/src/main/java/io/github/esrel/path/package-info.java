/**
 * {@link io.github.esrel.path.TreePath}: absolute, normalised paths, their ancestors and the
 * {@code path.tree} values of the file-system model. Pure logic, no I/O.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/tree-locks.md#paths">Tree locks: paths</a>.
 */
@NullMarked
package io.github.esrel.path;

import org.jspecify.annotations.NullMarked;
