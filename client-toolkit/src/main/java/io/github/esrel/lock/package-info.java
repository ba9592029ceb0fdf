/**
 * Tree locks: hierarchical, leased, fenced locks on paths, namespaced by a target index.
 *
 * <ul>
 *   <li>{@link io.github.esrel.lock.TreeLocks} — the provider interface; {@code TreeLocks.of(b -> b.client(es).index("fs"))}
 *       picks the plugin when the cluster has it.</li>
 *   <li>{@link io.github.esrel.lock.PluginTreeLocks} — on the esrel plugin's {@code _treelock} REST API.</li>
 *   <li>{@link io.github.esrel.lock.DocumentTreeLocks} — the plugin-less fallback on lock documents (conditional
 *       writes, no scripts), with seed 000's document locks.</li>
 *   <li>{@link io.github.esrel.lock.LockRequest}, {@link io.github.esrel.lock.LockMode} — what to lock.</li>
 *   <li>{@link io.github.esrel.lock.AcquireResult} — the held lock or the {@link io.github.esrel.lock.LockConflict}s.</li>
 *   <li>{@link io.github.esrel.lock.TreeLock}, {@link io.github.esrel.lock.DocumentLocks} — held locks
 *       ({@code AutoCloseable}), renewed in the background until closed.</li>
 *   <li>{@link io.github.esrel.lock.TreeLockListener} — renewals and lost leases;
 *       {@link io.github.esrel.lock.LockInfo} — what {@code list} returns;
 *       {@link io.github.esrel.lock.TreeLockException} — the one unchecked failure.</li>
 * </ul>
 *
 * <p>Paths are {@link io.github.esrel.path.TreePath}s.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/tree-locks.md">Tree locks</a>.
 */
@NullMarked
package io.github.esrel.lock;

import org.jspecify.annotations.NullMarked;
