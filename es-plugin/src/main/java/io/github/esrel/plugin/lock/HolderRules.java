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

    /** The live grant with this path and owner acquired with this grant id's nonce, or null. */
    @Nullable
    Grant findByNonce(String path, String owner, long nonce, long now);

    /** The released grant id with this nonce, if it is still remembered at {@code now}; else null. */
    @Nullable
    ReleasedId releasedId(long nonce, long now);

    /**
     * The store with {@code released} gone (and expired grants pruned where the store prunes), and the grant id of
     * {@code nonce} remembered as released, unless {@code nonce} is 0 (a release without a grant id).
     */
    R released(Grant released, long nonce, long now);

    /** The store with the grant id of {@code nonce} remembered as released, though it ended no grant. */
    R spent(long nonce, long now);

    /** The store with {@code match} replaced by {@code renewed}. */
    R renewed(Grant match, Grant renewed);

    /** An answer that changes nothing: {@code outcome}, with {@code holders}. */
    R unchanged(HolderOutcome outcome, List<Grant> holders);

    /** The live grants on {@code path}. */
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
     * @param token the grant's token, or 0 to name it by grant id
     * @param nonce the nonce of the request's grant id, or 0 if it has none
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
