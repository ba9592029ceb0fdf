/**
 * {@link io.github.esrel.health.HealthProbe}: what an operator (or a health endpoint) needs to know of esrel on a
 * cluster: the plugin on each node, the lock index of the tree locks and its health, the provider that serves them.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/tree-locks.md#checking-esrel-on-a-cluster">Tree locks: checking esrel on a cluster</a>.
 */
@NullMarked
package io.github.esrel.health;

import org.jspecify.annotations.NullMarked;
