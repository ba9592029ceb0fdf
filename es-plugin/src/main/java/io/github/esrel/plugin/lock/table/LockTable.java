package io.github.esrel.plugin.lock.table;

import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.Caller;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.LockMode;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import io.github.esrel.plugin.lock.grant.TreePath;
import io.github.esrel.plugin.lock.store.AcquireOutcome;
import io.github.esrel.plugin.lock.store.FencingTokens;
import io.github.esrel.plugin.lock.store.HolderOutcome;
import io.github.esrel.plugin.lock.store.HolderRules;
import io.github.esrel.plugin.lock.store.LockState;
import io.github.esrel.plugin.lock.store.TableDocument;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.elasticsearch.xcontent.XContentBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The lock table of one namespace as esrel 0.1 decided on it: every grant and the last fencing token issued, scanned
 * whole for every decision. Immutable; each operation returns the table after it. Stored as one document
 * ({@link TableDocument}), which the table store ({@link LockTableStore}) reads and rewrites with compare-and-set.
 *
 * <p>No store decides with it any more: both decide with {@link LockState}, which indexes the table so that a
 * decision costs {@code O(depth · log n)}, and which its tests hold to this class's decisions, grant for grant.
 * This class is that model: small enough to read whole and to model-check. The outcomes, the token rule and the
 * rules of release and renew are the kernel's ({@link AcquireOutcome}, {@link HolderOutcome}, {@link FencingTokens},
 * {@link HolderRules}), so that the model and the stores cannot disagree on them.
 *
 * <p>Time is passed in by the caller ({@code now}, epoch milliseconds): a grant is live while
 * {@code now < expires_at}, and an expired grant is ignored whether or not it has been pruned yet.
 */
public final class LockTable implements HolderRules<LockTable.HolderResult> {

    /** The table of an index that never had a lock: no grants, no token issued. */
    public static final LockTable EMPTY = new LockTable(0, List.of(), List.of());

    private final long lastToken;
    private final List<Grant> grants;
    /** The released grant ids, oldest first, at most {@link GrantIds#MAX_REMEMBERED}. */
    private final List<ReleasedId> released;

    /**
     * Creates a table that remembers no released grant id.
     *
     * @param lastToken the last fencing token issued, 0 if none
     * @param grants    the stored grants, live or not; copied
     * @throws IllegalArgumentException if {@code lastToken} is negative
     * @throws NullPointerException     if {@code grants} is or contains {@code null}
     */
    public LockTable(long lastToken, List<Grant> grants) {
        this(lastToken, grants, List.of());
    }

    /**
     * Creates a table.
     *
     * @param lastToken the last fencing token issued, 0 if none
     * @param grants    the stored grants, live or not; copied
     * @param released  the released grant ids it remembers, oldest first; the newest {@link GrantIds#MAX_REMEMBERED}
     *                  are kept
     * @throws IllegalArgumentException if {@code lastToken} is negative
     * @throws NullPointerException     if {@code grants} or {@code released} is or contains {@code null}
     */
    LockTable(long lastToken, List<Grant> grants, List<ReleasedId> released) {
        this(new TableDocument(lastToken, grants, released));
    }

    private LockTable(TableDocument document) {
        this.lastToken = document.lastToken();
        this.grants = document.grants();
        this.released = document.released();
    }

    /**
     * The released grant ids this table remembers, oldest first, forgotten ones included until the next change.
     *
     * @return the released grant ids; unmodifiable
     */
    public List<ReleasedId> released() {
        return released;
    }

    /** {@link #released()} as of {@code now}, with {@code also} added (if not null) and the forgotten ones left out. */
    private List<ReleasedId> releasedAt(long now, @Nullable ReleasedId also) {
        List<ReleasedId> next = new ArrayList<>(released.size() + 1);
        for (ReleasedId r : released) {
            if (r.forgottenAt(now) == false && (also == null || r.nonce() != also.nonce())) {
                next.add(r);
            }
        }
        if (also != null) {
            next.add(also);
        }
        return next;
    }

    @Override
    @Nullable
    public ReleasedId releasedId(long nonce, long now) {
        for (int i = released.size() - 1; i >= 0; i--) {
            ReleasedId r = released.get(i);
            if (r.nonce() == nonce) {
                return r.forgottenAt(now) ? null : r;
            }
        }
        return null;
    }

    /**
     * The last token issued (0 for a table that never issued one).
     *
     * @return the {@code last_token} of the table
     */
    public long lastToken() {
        return lastToken;
    }

    /**
     * Every stored grant, live or not.
     *
     * @return the grants in table order; unmodifiable
     */
    public List<Grant> grants() {
        return grants;
    }

    /**
     * The grants live at {@code now}.
     *
     * @param now the current time, epoch milliseconds
     * @return the unexpired grants in table order; unmodifiable
     */
    public List<Grant> live(long now) {
        return grants.stream().filter(g -> g.expiredAt(now) == false).toList();
    }

    /**
     * This table without the grants expired at {@code now}.
     *
     * @param now the current time, epoch milliseconds
     * @return this table if nothing has expired, else a new table with the same {@code last_token}
     */
    public LockTable pruned(long now) {
        List<Grant> live = live(now);
        return live.size() == grants.size() ? this : new LockTable(lastToken, live, releasedAt(now, null));
    }

    /**
     * The live grants that stand in the way of {@code mode} on {@code path}, in table order.
     *
     * @param path the requested path (valid)
     * @param mode the requested mode
     * @param now  the current time, epoch milliseconds
     * @return the conflicting grants; empty if the lock could be granted
     */
    public List<Grant> conflicts(String path, LockMode mode, long now) {
        List<Grant> conflicts = new ArrayList<>();
        for (Grant g : grants) {
            if (g.expiredAt(now) == false && g.conflictsWith(path, mode)) {
                conflicts.add(g);
            }
        }
        return conflicts;
    }

    /**
     * The token the next grant gets, by {@link FencingTokens#next}: {@code max(last_token + 1, now * 1000)}.
     *
     * @param now the current time, epoch milliseconds (a value out of range counts as 0)
     * @return the next fencing token, greater than {@link #lastToken()}
     * @throws IllegalStateException when the 64-bit space is used up (in some 290,000 years)
     */
    public long nextToken(long now) {
        return FencingTokens.next(lastToken, now);
    }

    /**
     * The result of {@link #acquire}.
     *
     * @param outcome   whether the lock was granted, and if not, why
     * @param table     the table after the request (unchanged unless a new grant was made)
     * @param grant     the grant, when {@link AcquireOutcome#GRANTED}; the live grant of the grant id, when
     *                  {@link AcquireOutcome#ID_REUSED} and there is one
     * @param conflicts the grants in the way, when {@link AcquireOutcome#CONFLICT}
     */
    public record AcquireResult(
            AcquireOutcome outcome,
            LockTable table,
            @Nullable Grant grant,
            List<Grant> conflicts) {}

    /**
     * Grants {@code mode} on {@code path} (and shared on its proper ancestors) if no live grant conflicts and
     * the table has room. A request whose grant is already in the table (same nonce: an earlier write of the
     * same request that did succeed) gets that grant back.
     *
     * @param path      the path to lock (valid)
     * @param mode      the mode on {@code path}
     * @param owner     the owner of the new grant
     * @param ttlMillis the lease, in milliseconds from {@code now}
     * @param nonce     the random number of the request, stored in the grant to recognise a retry
     * @param now       the current time, epoch milliseconds
     * @param maxLocks the most live grants the table may hold
     * @return the outcome, with the new table and the grant or the conflicting grants
     * @throws IllegalStateException if the fencing token space is exhausted
     */
    public AcquireResult acquire(
            String path, LockMode mode, String owner, long ttlMillis, long nonce, long now, int maxLocks) {
        return acquire(path, mode, owner, null, ttlMillis, nonce, now, maxLocks);
    }

    /**
     * {@link #acquire(String, LockMode, String, long, long, long, int)}, the grant bound to {@code boundTo}.
     *
     * @param path      the path to lock (valid)
     * @param mode      the mode on {@code path}
     * @param owner     the owner of the new grant
     * @param boundTo   the user only who may release or renew the grant (besides those who may override
     *                  bindings), or null for anyone
     * @param ttlMillis the lease, in milliseconds from {@code now}
     * @param nonce     the random number of the request, stored in the grant to recognise a retry
     * @param now       the current time, epoch milliseconds
     * @param maxLocks  the most live grants the table may hold
     * @return the outcome, with the new table and the grant or the conflicting grants
     * @throws IllegalStateException if the fencing token space is exhausted
     */
    public AcquireResult acquire(
            String path,
            LockMode mode,
            String owner,
            @Nullable AuthenticatedUser boundTo,
            long ttlMillis,
            long nonce,
            long now,
            int maxLocks) {
        int live = 0;
        for (Grant g : grants) {
            if (g.expiredAt(now) == false) {
                if (g.nonce() == nonce) {
                    return new AcquireResult(
                            g.isAcquisition(path, mode, owner, boundTo)
                                    ? AcquireOutcome.GRANTED
                                    : AcquireOutcome.ID_REUSED,
                            this,
                            g,
                            List.of());
                }
                live++;
            }
        }
        if (releasedId(nonce, now) != null) {
            return new AcquireResult(AcquireOutcome.ID_REUSED, this, null, List.of());
        }
        List<Grant> conflicts = conflicts(path, mode, now);
        if (conflicts.isEmpty() == false) {
            return new AcquireResult(AcquireOutcome.CONFLICT, this, null, conflicts);
        }
        if (live >= maxLocks) {
            return new AcquireResult(AcquireOutcome.FULL, this, null, List.of());
        }
        long token = nextToken(now);
        Grant grant = new Grant(path, mode, owner, token, now + ttlMillis, nonce, boundTo);
        List<Grant> next = new ArrayList<>(live + 1);
        next.addAll(live(now));
        next.add(grant);
        return new AcquireResult(
                AcquireOutcome.GRANTED, new LockTable(token, next, releasedAt(now, null)), grant, List.of());
    }

    /**
     * The result of {@link #release} and {@link #renew}.
     *
     * @param outcome whether the request was done, and if not, why
     * @param table   the table after the request
     * @param grant   the grant released or renewed (after renewal), when {@link HolderOutcome#DONE}; null
     *                when a release is reported done because an earlier attempt may have removed it
     * @param holders the live grants on the path, when {@link HolderOutcome#HELD_BY_OTHER}; the grant itself
     *                when {@link HolderOutcome#BOUND_TO_OTHER_USER}
     */
    public record HolderResult(
            HolderOutcome outcome,
            LockTable table,
            @Nullable Grant grant,
            List<Grant> holders) {}

    /**
     * Releases the live grant with this path, owner and token, which frees its shared ancestor locks too.
     * Expired grants are pruned from the resulting table.
     *
     * @param path                       the path of the grant
     * @param owner                      the owner of the grant
     * @param token                      the fencing token of the grant
     * @param now                        the current time, epoch milliseconds
     * @param earlierWriteMayHaveApplied an earlier attempt of this very request wrote a table without the
     *                                   grant and its outcome is unknown; then a missing grant counts as
     *                                   released by that attempt
     * @return the outcome, with the new table and the released grant or the holders of the path
     */
    public HolderResult release(String path, String owner, long token, long now, boolean earlierWriteMayHaveApplied) {
        return release(path, owner, token, 0, Caller.of(null), now, earlierWriteMayHaveApplied);
    }

    /**
     * {@link #release(String, String, long, long, boolean)} on behalf of {@code caller}: a grant bound to another
     * user is left alone ({@link HolderOutcome#BOUND_TO_OTHER_USER}) unless the caller overrides bindings.
     *
     * @param path                       the path of the grant
     * @param owner                      the owner of the grant
     * @param token                      the fencing token of the grant
     * @param caller                     who asks
     * @param now                        the current time, epoch milliseconds
     * @param earlierWriteMayHaveApplied as for {@link #release(String, String, long, long, boolean)}
     * @return the outcome, with the new table and the released grant, the holders of the path, or the bound grant
     */
    public HolderResult release(
            String path, String owner, long token, Caller caller, long now, boolean earlierWriteMayHaveApplied) {
        return release(path, owner, token, 0, caller, now, earlierWriteMayHaveApplied);
    }

    /**
     * Sets the expiry of the live grant with this path, owner and token to {@code now + ttlMillis}. This can
     * shorten a lease too. Expired grants are pruned from the resulting table.
     *
     * @param path      the path of the grant
     * @param owner     the owner of the grant
     * @param token     the fencing token of the grant
     * @param ttlMillis the new lease, in milliseconds from {@code now}
     * @param now       the current time, epoch milliseconds
     * @return the outcome, with the new table and the renewed grant or the holders of the path
     */
    public HolderResult renew(String path, String owner, long token, long ttlMillis, long now) {
        return renew(path, owner, token, Caller.of(null), ttlMillis, now);
    }

    @Override
    @Nullable
    public Grant find(String path, String owner, long token, long now) {
        return liveGrant(path, owner, now, g -> g.token() == token);
    }

    @Override
    @Nullable
    public Grant findByNonce(String path, String owner, long nonce, long now) {
        return liveGrant(path, owner, now, g -> g.nonce() == nonce);
    }

    /** The first live grant with this path and owner that {@code named} accepts. */
    @Nullable
    private Grant liveGrant(String path, String owner, long now, Predicate<Grant> named) {
        for (Grant g : grants) {
            if (named.test(g) && g.path().equals(path) && g.owner().equals(owner) && g.expiredAt(now) == false) {
                return g;
            }
        }
        return null;
    }

    @Override
    public HolderResult released(Grant released, long nonce, long now) {
        return replaced(
                released,
                null,
                nonce == 0 ? null : new ReleasedId(nonce, released.token(), now + GrantIds.REMEMBER_MILLIS),
                now);
    }

    @Override
    public HolderResult spent(long nonce, long now) {
        LockTable next = new LockTable(
                lastToken, grants, releasedAt(now, new ReleasedId(nonce, 0, now + GrantIds.REMEMBER_MILLIS)));
        return new HolderResult(HolderOutcome.DONE, next, null, List.of());
    }

    @Override
    public HolderResult renewed(Grant match, Grant renewed, long now) {
        return replaced(match, renewed, null, now);
    }

    /** The table with {@code match} replaced by {@code renewed}, or dropped for null; live grants only. */
    private HolderResult replaced(Grant match, @Nullable Grant renewed, @Nullable ReleasedId releasedId, long now) {
        List<Grant> next = new ArrayList<>(grants.size());
        for (Grant g : grants) {
            if (g == match) {
                if (renewed != null) {
                    next.add(renewed);
                }
            } else if (g.expiredAt(now) == false) {
                next.add(g);
            }
        }
        return new HolderResult(
                HolderOutcome.DONE,
                new LockTable(lastToken, next, releasedAt(now, releasedId)),
                renewed == null ? match : renewed,
                List.of());
    }

    @Override
    public HolderResult unchanged(HolderOutcome outcome, List<Grant> holders) {
        return new HolderResult(outcome, this, null, holders);
    }

    @Override
    public List<Grant> liveOn(String path, long now) {
        return grants.stream()
                .filter(g -> g.path().equals(path) && g.expiredAt(now) == false)
                .toList();
    }

    /**
     * The live grants on {@code prefix} or below it, sorted by path, then token.
     *
     * @param prefix the top of the subtree (valid); {@code /} for every grant
     * @param now    the current time, epoch milliseconds
     * @return the matching grants; unmodifiable
     */
    public List<Grant> liveAtOrBelow(String prefix, long now) {
        List<Grant> result = new ArrayList<>();
        for (Grant g : grants) {
            if (g.expiredAt(now) == false && TreePath.isAtOrBelow(g.path(), prefix)) {
                result.add(g);
            }
        }
        result.sort((a, b) -> {
            int byPath = a.path().compareTo(b.path());
            return byPath != 0 ? byPath : Long.compare(a.token(), b.token());
        });
        return Collections.unmodifiableList(result);
    }

    /**
     * Writes the stored document ({@link TableDocument}), every stored grant included.
     *
     * @param builder   the builder to write the document to
     * @param namespace the index the table belongs to, stored as {@code namespace}
     * @param now       the time of the write, epoch milliseconds, stored as {@code updated_at}
     * @return {@code builder}
     * @throws IOException if the builder fails to write
     */
    public XContentBuilder toXContent(XContentBuilder builder, String namespace, long now) throws IOException {
        return new TableDocument(lastToken, grants, released).toXContent(builder, namespace, now);
    }

    /**
     * Reads the stored document.
     *
     * @param source the document's source, as a map
     * @return the table the document holds
     * @throws IllegalStateException if it is not a lock table (only the plugin writes the lock index)
     */
    public static LockTable fromSource(Map<String, Object> source) {
        return new LockTable(TableDocument.fromSource(source));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockTable t
                && lastToken == t.lastToken
                && grants.equals(t.grants)
                && released.equals(t.released);
    }

    @Override
    public int hashCode() {
        return Objects.hash(lastToken, grants, released);
    }

    @Override
    public String toString() {
        return "LockTable[last_token=" + lastToken + ", grants=" + grants
                + (released.isEmpty() ? "" : ", released=" + released) + "]";
    }
}
