/**
 * A ShedLock lock provider on tree locks: {@link io.github.esrel.shedlock.EsrelLockProvider} takes each lock name as an
 * exclusive tree lock, leased for {@code lockAtMostFor} (counted by the node with the plugin), owner-checked on unlock,
 * extendable, with a fencing token ({@link io.github.esrel.shedlock.EsrelSimpleLock}).
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/tree-locks.md#shedlock">Tree locks: ShedLock</a>.
 */
@NullMarked
package io.github.esrel.shedlock;

import org.jspecify.annotations.NullMarked;
