package io.github.esrel.plugin.lock;

import io.github.esrel.plugin.lock.LockTable.HolderOutcome;
import java.util.List;
import org.elasticsearch.core.Nullable;

/**
 * The rules of release and renew, once for both lock stores ({@link LockTable}, esrel 0.1's one document, and
 * {@link LockState}, the head and grant documents): which grant the request names, whether the caller may change it,
 * and what is answered when it may not. Each store says only how it finds grants and how it writes the change, so the
 * two cannot disagree on an answer.
 *
 * @param <R> the store's result type: its outcome, the store after the change, the grant, the holders
 */
interface HolderRules<R> {

    /** The live grant with this path, owner and token, or null. */
    @Nullable
    Grant find(String path, String owner, long token, long now);

    /** The store with {@code released} gone (and expired grants pruned where the store prunes). */
    R released(Grant released);

    /** The store with {@code match} replaced by {@code renewed}. */
    R renewed(Grant match, Grant renewed);

    /** An answer that changes nothing: {@code outcome}, with {@code holders}. */
    R unchanged(HolderOutcome outcome, List<Grant> holders);

    /** The live grants on {@code path}. */
    List<Grant> liveOn(String path, long now);

    /**
     * Ends the grant with this path, owner and token. A grant bound to another user is left alone unless the caller
     * overrides bindings. When none matches: done anyway if an earlier write of this release may have applied (a
     * retried release found its own effect), else not held or held by others.
     */
    default R release(
            String path, String owner, long token, Caller caller, long now, boolean earlierWriteMayHaveApplied) {
        Grant match = find(path, owner, token, now);
        if (match == null) {
            return earlierWriteMayHaveApplied
                    ? unchanged(HolderOutcome.DONE, List.of())
                    : notHeldOrHeldByOther(path, now);
        }
        return match.mayBeChangedBy(caller) ? released(match) : boundToOtherUser(match);
    }

    /** Sets the expiry of the grant with this path, owner and token to {@code now + ttlMillis}, as release decides. */
    default R renew(String path, String owner, long token, Caller caller, long ttlMillis, long now) {
        Grant match = find(path, owner, token, now);
        if (match == null) {
            return notHeldOrHeldByOther(path, now);
        }
        return match.mayBeChangedBy(caller)
                ? renewed(match, match.withExpiry(now + ttlMillis))
                : boundToOtherUser(match);
    }

    private R boundToOtherUser(Grant match) {
        return unchanged(HolderOutcome.BOUND_TO_OTHER_USER, List.of(match));
    }

    private R notHeldOrHeldByOther(String path, long now) {
        List<Grant> holders = liveOn(path, now);
        return unchanged(holders.isEmpty() ? HolderOutcome.NOT_HELD : HolderOutcome.HELD_BY_OTHER, holders);
    }
}
