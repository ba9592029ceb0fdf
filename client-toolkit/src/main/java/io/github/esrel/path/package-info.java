/**
 * {@link io.github.esrel.path.TreePath}: absolute, normalised paths, their ancestors and the
 * {@code path.tree} values of the file-system model. Pure logic, no I/O.
 */
package io.github.esrel.path;
