/**
 * The kernel of the tree locks: the decisions on a namespace's lock table ({@link
 * io.github.esrel.plugin.lock.store.LockState} over a {@link io.github.esrel.plugin.lock.store.LockIndex}, with the
 * rules of release and renew, the outcomes and the fencing token rule), and the grant store that keeps the tables in
 * the lock index ({@link io.github.esrel.plugin.lock.store.GrantStore}: a head per namespace and a document per
 * grant), with what every store of the lock index shares: the index itself, its reads, what its failures mean, the
 * stored form of a grant, and the one-document table of esrel 0.1 that the grant store takes over.
 */
@NullMarked
package io.github.esrel.plugin.lock.store;

import org.jspecify.annotations.NullMarked;
