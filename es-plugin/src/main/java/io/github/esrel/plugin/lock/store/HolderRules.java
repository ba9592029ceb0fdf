package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.grant.Caller;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The rules of release and renew, once for every table that decides them ({@link LockState}, the indexed table both
 * stores decide on, and the one-document table of esrel 0.1 that its tests hold it to): which grant the request
 * names, whether the caller may change it, and what is answered when it may not. Each table says only how it finds
 * grants and how it makes the change, so the two cannot disagree on an answer.
 *
 * @param <R> the table's result type: its outcome, the table after the change, the grant, the holders
 */
public interface HolderRules<R> {

    /**
     * The live grant with this path, owner and token.
     *
     * @param path  the path of the grant
     * @param owner the owner of the grant
     * @param token the fencing token of the grant
     * @param now   the current time, epoch milliseconds
     * @return the grant, or null if none is live
     */
    @Nullable
    Grant find(String path, String owner, long token, long now);

    /**
     * The live grant with this path and owner acquired with this grant id's nonce.
     *
     * @param path  the path of the grant
     * @param owner the owner of the grant
     * @param nonce the nonce of the grant id ({@link GrantIds#nonce})
     * @param now   the current time, epoch milliseconds
     * @return the grant, or null if none is live
     */
    @Nullable
    Grant findByNonce(String path, String owner, long nonce, long now);

    /**
     * The released grant id with this nonce, if it is still remembered at {@code now}.
     *
     * @param nonce the nonce of the grant id
     * @param now   the current time, epoch milliseconds
     * @return the released grant id, or null if none is remembered
     */
    @Nullable
    ReleasedId releasedId(long nonce, long now);

    /**
     * The table with {@code released} gone (and expired grants pruned where the table prunes), and the grant id of
     * {@code nonce} remembered as released, unless {@code nonce} is 0 (a release without a grant id).
     *
     * @param released the live grant the release ends
     * @param nonce    the nonce of the release's grant id, or 0 if it has none
     * @param now      the current time, epoch milliseconds
     * @return a {@link HolderOutcome#DONE} result with the released grant
     */
    R released(Grant released, long nonce, long now);

    /**
     * The table with the grant id of {@code nonce} remembered as released, though it ended no grant.
     *
     * @param nonce the nonce of the release's grant id, not 0
     * @param now   the current time, epoch milliseconds
     * @return a {@link HolderOutcome#DONE} result without a grant
     */
    R spent(long nonce, long now);

    /**
     * The table with {@code match} replaced by {@code renewed} (and expired grants pruned where the table prunes).
     *
     * @param match   the live grant renewed
     * @param renewed the grant with its new lease end
     * @param now     the current time, epoch milliseconds
     * @return a {@link HolderOutcome#DONE} result with the renewed grant
     */
    R renewed(Grant match, Grant renewed, long now);

    /**
     * An answer that changes nothing.
     *
     * @param outcome the outcome
     * @param holders the grants the answer names: the holders of the path, or the grant bound to another user
     * @return a result with this table, unchanged
     */
    R unchanged(HolderOutcome outcome, List<Grant> holders);

    /**
     * The live grants on exactly {@code path}.
     *
     * @param path the path
     * @param now  the current time, epoch milliseconds
     * @return the grants; unmodifiable
     */
    List<Grant> liveOn(String path, long now);

    /**
     * Ends the grant with this path, owner and token, or with this path, owner and grant id ({@code token} 0). A
     * grant bound to another user is left alone unless the caller overrides bindings. A release with a grant id
     * ({@code nonce} not 0) leaves the id remembered as released ({@link GrantIds}). When no grant matches: done
     * anyway if this grant id's release is remembered (the same release sent again, by its client or on its way,
     * found its own effect) or if an earlier write of this very request may have applied (this node's retry found
     * its own effect); done for a release by grant id alone, whose id is then remembered as released though it had
     * no grant (a late copy of its acquire grants nothing); else not held or held by others.
     *
     * @param path                       the path of the grant
     * @param owner                      the owner of the grant
     * @param token                      the grant's token, or 0 to name it by grant id
     * @param nonce                      the nonce of the request's grant id, or 0 if it has none
     * @param caller                     who asks
     * @param now                        the current time, epoch milliseconds
     * @param earlierWriteMayHaveApplied an earlier attempt of this very request wrote a table without the grant and
     *                                   its outcome is unknown; then a missing grant counts as released by it
     * @return the outcome, with the table after it and the released grant, the holders of the path, or the bound
     *     grant
     * @throws IllegalArgumentException if both {@code token} and {@code nonce} are 0
     */
    default R release(
            String path,
            String owner,
            long token,
            long nonce,
            Caller caller,
            long now,
            boolean earlierWriteMayHaveApplied) {
        if (token == 0 && nonce == 0) {
            throw new IllegalArgumentException("a release names its grant by token or by grant id");
        }
        Grant match = token != 0 ? find(path, owner, token, now) : findByNonce(path, owner, nonce, now);
        if (match != null) {
            return match.mayBeChangedBy(caller) ? released(match, nonce, now) : boundToOtherUser(match);
        }
        ReleasedId earlier = nonce == 0 ? null : releasedId(nonce, now);
        if ((earlier != null && earlier.matches(token)) || earlierWriteMayHaveApplied) {
            return unchanged(HolderOutcome.DONE, List.of());
        }
        return token == 0 ? spent(nonce, now) : notHeldOrHeldByOther(path, now);
    }

    /**
     * Sets the expiry of the grant with this path, owner and token to {@code now + ttlMillis}, as release decides
     * whether the caller may. This can shorten a lease too.
     *
     * @param path      the path of the grant
     * @param owner     the owner of the grant
     * @param token     the fencing token of the grant
     * @param caller    who asks
     * @param ttlMillis the new lease, in milliseconds from {@code now}
     * @param now       the current time, epoch milliseconds
     * @return the outcome, with the table after it and the renewed grant, the holders of the path, or the bound
     *     grant
     */
    default R renew(String path, String owner, long token, Caller caller, long ttlMillis, long now) {
        Grant match = find(path, owner, token, now);
        if (match == null) {
            return notHeldOrHeldByOther(path, now);
        }
        return match.mayBeChangedBy(caller)
                ? renewed(match, match.withExpiry(now + ttlMillis), now)
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
