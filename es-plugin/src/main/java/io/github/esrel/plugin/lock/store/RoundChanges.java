package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import java.util.Collection;
import java.util.List;

/**
 * What a round changed, to be stored and then applied to the index: decided on a {@link LockState}, kept in a head
 * ({@link LockHead}) and applied to a {@link LockIndex}.
 *
 * @param lastToken the last token issued after the round
 * @param put       grants added or renewed (a renewed grant replaces the stored one of the same token)
 * @param removed   tokens of stored grants released (or expired and pruned)
 * @param released  grant ids the round's releases remembered ({@link GrantIds})
 */
record RoundChanges(long lastToken, Collection<Grant> put, Collection<Long> removed, Collection<ReleasedId> released) {

    /** Changes that remember no released grant id. */
    RoundChanges(long lastToken, Collection<Grant> put, Collection<Long> removed) {
        this(lastToken, put, removed, List.of());
    }
}
