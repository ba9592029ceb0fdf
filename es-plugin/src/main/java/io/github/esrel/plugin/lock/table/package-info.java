/**
 * The table store of esrel 0.1 ({@code esrel.treelock.store: table}): each namespace's whole lock table in one
 * document, rewritten by every change ({@link io.github.esrel.plugin.lock.table.LockTableStore}), and the model of its
 * decisions that the kernel's are held to ({@link io.github.esrel.plugin.lock.table.LockTable}). A leaf: only the
 * store choice ({@code TreeLockService}) uses it; the grant store reads its documents through the kernel.
 */
@NullMarked
package io.github.esrel.plugin.lock.table;

import org.jspecify.annotations.NullMarked;
