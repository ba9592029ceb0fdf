/**
 * Tree locks in the plugin: {@link io.github.esrel.plugin.lock.TreeLockService} decides acquires, releases, renewals
 * and listings on each index's lock table, kept in the system index {@code .esrel-treelocks-1} and changed by one
 * compare-and-set per round of decisions. The class Javadoc says why no two conflicting grants can coexist.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/tree-locks.md">Tree locks</a>.
 */
@NullMarked
package io.github.esrel.plugin.lock;

import org.jspecify.annotations.NullMarked;
