/**
 * Group commit: many changes to one state per key applied to one read and stored with one compare-and-set write
 * ({@link io.github.esrel.plugin.lock.commit.GroupCommitter}), over any {@link
 * io.github.esrel.plugin.lock.commit.VersionedStore} and on a {@link io.github.esrel.plugin.lock.commit.TaskScheduler}
 * that tests replace with virtual time. Knows nothing about locks.
 */
@NullMarked
package io.github.esrel.plugin.lock.commit;

import org.jspecify.annotations.NullMarked;
