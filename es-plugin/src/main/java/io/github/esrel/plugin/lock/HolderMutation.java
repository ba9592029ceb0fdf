package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.commit.GroupCommitter;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.TreePath;
import io.github.esrel.plugin.lock.store.LockState;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.elasticsearch.ElasticsearchSecurityException;
import org.elasticsearch.ElasticsearchStatusException;
import org.elasticsearch.ResourceNotFoundException;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.rest.RestStatus;

/**
 * A release or a renewal: a change to the live grant its holder names. Answers with the {@link HolderResult}
 * once the change is stored, a {@link ResourceNotFoundException} (404) when the path has no live grant, an
 * {@link ElasticsearchStatusException} (409) when another owner or token holds it, or an
 * {@link ElasticsearchSecurityException} (403) when the grant is bound to another user and the caller may not
 * override that.
 */
final class HolderMutation implements GroupCommitter.Mutation<LockState> {

    /** The change, one of {@link LockState#release} and {@link LockState#renew}. */
    interface Change {
        /**
         * @param now                        the time of the decision, epoch milliseconds
         * @param earlierWriteMayHaveApplied an earlier write of this change failed without telling whether it
         *                                   was applied
         */
        LockState.Held apply(LockState table, long now, boolean earlierWriteMayHaveApplied);
    }

    private final GrantRef grant;
    private final Change change;
    private final LongSupplier clock;
    private final ActionListener<LockState.Held> listener;
    private volatile boolean writeMayHaveApplied;

    /** @param clock epoch milliseconds, the time leases are measured with */
    HolderMutation(GrantRef grant, Change change, LongSupplier clock, ActionListener<LockState.Held> listener) {
        this.grant = grant;
        this.change = change;
        this.clock = clock;
        this.listener = listener;
    }

    @Override
    public GroupCommitter.Decision<LockState> apply(LockState table) {
        LockState.Held result = change.apply(table, clock.getAsLong(), writeMayHaveApplied);
        return switch (result.outcome()) {
            case DONE -> new GroupCommitter.Decision<>(result.state(), () -> listener.onResponse(result));
            case NOT_HELD -> new GroupCommitter.Decision<>(table, () -> listener.onFailure(notHeld(grant)));
            case HELD_BY_OTHER ->
                new GroupCommitter.Decision<>(table, () -> listener.onFailure(heldByOther(grant, result.holders())));
            case BOUND_TO_OTHER_USER ->
                new GroupCommitter.Decision<>(
                        table,
                        // BOUND_TO_OTHER_USER: the holder is bound to a user.
                        () -> listener.onFailure(GrantBindings.refused(
                                grant,
                                Objects.requireNonNull(result.holders().get(0).boundTo()))));
        };
    }

    @Override
    public void writeOutcomeUnknown() {
        writeMayHaveApplied = true;
    }

    @Override
    public void fail(Exception e) {
        listener.onFailure(e);
    }

    static ResourceNotFoundException notHeld(GrantRef grant) {
        return new ResourceNotFoundException(
                "no live lock on [{}] in [{}]: owner [{}] with token [{}] never held it, released it, or its lease expired",
                TreePath.shorten(grant.path()),
                grant.namespace(),
                TreePath.shorten(grant.owner()),
                grant.token());
    }

    static ElasticsearchStatusException heldByOther(GrantRef grant, List<Grant> holders) {
        String held = holders.stream()
                .limit(10)
                .map(g -> "owner [" + TreePath.shorten(g.owner()) + "] token [" + g.token() + "]")
                .collect(Collectors.joining(", "));
        return new ElasticsearchStatusException(
                "the lock on [{}] in [{}] is held by {}{}, not by owner [{}] with token [{}]",
                RestStatus.CONFLICT,
                TreePath.shorten(grant.path()),
                grant.namespace(),
                held,
                holders.size() > 10 ? " and " + (holders.size() - 10) + " more" : "",
                TreePath.shorten(grant.owner()),
                grant.token());
    }
}
