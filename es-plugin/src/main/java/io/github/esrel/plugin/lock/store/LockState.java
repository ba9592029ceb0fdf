package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.GrantPage;
import io.github.esrel.plugin.lock.grant.LockMode;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import io.github.esrel.plugin.lock.grant.TreePath;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The lock table of one namespace as a round sees it: the table as stored, indexed ({@link LockIndex}), and the
 * changes decided in the round so far. Every decision of both stores is taken here: acquire, release, renew and list.
 * Immutable, as the group commit needs its states to be; each operation returns the state after it. The decisions
 * are those of esrel 0.1's one-document table, grant for grant (its tests and a randomised comparison with that model,
 * {@code table.LockTable}, hold this class to that), but each costs {@code O(depth · log n + k)} for {@code n} grants,
 * {@code k} of them in the way, and copies only the round's changes, of which there are at most as many as the
 * round's mutations.
 *
 * <p>A state is only valid while its index has not changed ({@link LockIndex#generation()}): the store applies the
 * changes of a stored round to the index and starts the next round from a new view of it.
 */
public final class LockState implements HolderRules<LockState.Held> {

    private static final Comparator<Grant> BY_TOKEN = Comparator.comparingLong(Grant::token);
    private static final Comparator<Grant> BY_PATH_THEN_TOKEN =
            Comparator.comparing(Grant::path).thenComparingLong(Grant::token);

    /**
     * What an acquire decided.
     *
     * @param outcome   whether the lock was granted, and if not, why
     * @param state     the state after the acquire (this very state unless a new grant was made)
     * @param grant     the grant, when {@link AcquireOutcome#GRANTED}; the live grant of the grant id, when
     *                  {@link AcquireOutcome#ID_REUSED} and there is one
     * @param conflicts the grants in the way, when {@link AcquireOutcome#CONFLICT}
     */
    public record Acquired(
            AcquireOutcome outcome,
            LockState state,
            @Nullable Grant grant,
            List<Grant> conflicts) {}

    /**
     * What a release or a renewal decided.
     *
     * @param outcome whether the request was done, and if not, why
     * @param state   the state after the request
     * @param grant   the grant released or renewed (after renewal), when {@link HolderOutcome#DONE}; null when a
     *                release is reported done because an earlier attempt may have removed it
     * @param holders the live grants on the path, when {@link HolderOutcome#HELD_BY_OTHER}; the grant itself when
     *                {@link HolderOutcome#BOUND_TO_OTHER_USER}
     */
    public record Held(
            HolderOutcome outcome,
            LockState state,
            @Nullable Grant grant,
            List<Grant> holders) {}

    private final LockIndex index;
    private final long generation;
    private final long lastToken;
    /** Grants added or renewed in this round, by token. */
    private final Map<Long, Grant> put;
    /** Tokens of the index's grants released in this round. */
    private final Set<Long> removed;
    /** Grant ids released in this round, by nonce. */
    private final Map<Long, ReleasedId> released;

    private LockState(
            LockIndex index,
            long generation,
            long lastToken,
            Map<Long, Grant> put,
            Set<Long> removed,
            Map<Long, ReleasedId> released) {
        this.index = index;
        this.generation = generation;
        this.lastToken = lastToken;
        this.put = put;
        this.removed = removed;
        this.released = released;
    }

    /**
     * The state of a namespace without locks, over an index of its own: what a store reads for a namespace it has
     * never written.
     *
     * @return a state with no grants and no token issued
     */
    public static LockState empty() {
        return of(new LockIndex(0, List.of()));
    }

    /** A view of {@code index} as it is now, with no changes decided yet. */
    static LockState of(LockIndex index) {
        return new LockState(index, index.generation(), index.lastToken(), Map.of(), Set.of(), Map.of());
    }

    /** The last token issued. */
    long lastToken() {
        return lastToken;
    }

    /** What this round changed so far. */
    RoundChanges changes() {
        return new RoundChanges(
                lastToken, List.copyOf(put.values()), List.copyOf(removed), List.copyOf(released.values()));
    }

    /** Whether this state is a current view of {@code index}. */
    boolean isViewOf(LockIndex index) {
        return this.index == index && isCurrent();
    }

    /** Whether this state still describes its index (it has not changed since the round started). */
    boolean isCurrent() {
        return generation == index.generation();
    }

    /** The token the next grant gets ({@link FencingTokens#next}). */
    long nextToken(long now) {
        return FencingTokens.next(lastToken, now);
    }

    /**
     * The live grants that stand in the way of {@code mode} on {@code path}, in token order, at most
     * {@code limit} of them (those below {@code path} in path order before the limit is applied).
     */
    List<Grant> conflicts(String path, LockMode mode, long now, int limit) {
        checkCurrent();
        List<Grant> conflicts = new ArrayList<>();
        // An exclusive grant on a proper ancestor: this request takes a shared lock there.
        for (String ancestor = TreePath.parent(path); ancestor != null; ancestor = TreePath.parent(ancestor)) {
            for (Grant g : onPath(ancestor)) {
                if (g.mode() == LockMode.EXCLUSIVE && g.expiredAt(now) == false) {
                    conflicts.add(g);
                }
            }
        }
        for (Grant g : onPath(path)) {
            if ((g.mode() == LockMode.EXCLUSIVE || mode == LockMode.EXCLUSIVE) && g.expiredAt(now) == false) {
                conflicts.add(g);
            }
        }
        if (mode == LockMode.EXCLUSIVE) {
            // Every live grant below: each holds a shared lock on this path.
            collectBelow(path, now, limit - Math.min(limit, conflicts.size()), conflicts);
        }
        conflicts.sort(BY_TOKEN);
        return conflicts.size() > limit ? List.copyOf(conflicts.subList(0, limit)) : conflicts;
    }

    /**
     * Grants {@code mode} on {@code path} (and shared on its proper ancestors) if no live grant conflicts and the
     * table has room. A request whose grant is already in the table (same nonce: an earlier write of the same request
     * that did succeed, or the same acquire sent again with its grant id) gets that grant back, if it is the same
     * acquisition; a nonce that names another acquisition, or a released grant id, grants nothing.
     *
     * @param path         the path to lock (valid)
     * @param mode         the mode on {@code path}
     * @param owner        the owner of the new grant
     * @param boundTo      the user only who may release or renew the grant (besides those who may override
     *                     bindings), or null for anyone
     * @param ttlMillis    the lease, in milliseconds from {@code now}
     * @param nonce        the nonce of the request, stored in the grant to recognise a retry
     * @param now          the current time, epoch milliseconds
     * @param maxLocks     the most live grants the table may hold
     * @param maxConflicts the most conflicts reported
     * @return the outcome, with the state after it and the grant or the conflicting grants
     * @throws IllegalStateException if the fencing token space is exhausted, or this state's index changed since it
     *     was taken
     */
    public Acquired acquire(
            String path,
            LockMode mode,
            String owner,
            @Nullable AuthenticatedUser boundTo,
            long ttlMillis,
            long nonce,
            long now,
            int maxLocks,
            int maxConflicts) {
        checkCurrent();
        Grant same = byNonce(nonce, now);
        if (same != null) {
            return new Acquired(
                    same.isAcquisition(path, mode, owner, boundTo) ? AcquireOutcome.GRANTED : AcquireOutcome.ID_REUSED,
                    this,
                    same,
                    List.of());
        }
        if (releasedId(nonce, now) != null) {
            return new Acquired(AcquireOutcome.ID_REUSED, this, null, List.of());
        }
        List<Grant> conflicts = conflicts(path, mode, now, maxConflicts);
        if (conflicts.isEmpty() == false) {
            return new Acquired(AcquireOutcome.CONFLICT, this, null, conflicts);
        }
        if (liveCount(now) >= maxLocks) {
            return new Acquired(AcquireOutcome.FULL, this, null, List.of());
        }
        long token = nextToken(now);
        Grant grant = new Grant(path, mode, owner, token, now + ttlMillis, nonce, boundTo);
        return new Acquired(AcquireOutcome.GRANTED, with(grant, token), grant, List.of());
    }

    @Override
    public Held released(Grant match, long nonce, long now) {
        long token = match.token();
        Map<Long, Grant> nextPut = put;
        Set<Long> nextRemoved = removed;
        if (put.containsKey(token)) {
            nextPut = new HashMap<>(put);
            nextPut.remove(token);
        }
        if (index.byToken(token) != null) {
            nextRemoved = new HashSet<>(removed);
            nextRemoved.add(token);
        }
        Map<Long, ReleasedId> nextReleased = nonce == 0 ? released : remembering(nonce, token, now);
        return new Held(
                HolderOutcome.DONE,
                new LockState(index, generation, lastToken, nextPut, nextRemoved, nextReleased),
                match,
                List.of());
    }

    @Override
    public Held spent(long nonce, long now) {
        LockState next = new LockState(index, generation, lastToken, put, removed, remembering(nonce, 0, now));
        return new Held(HolderOutcome.DONE, next, null, List.of());
    }

    /** This round's released grant ids with {@code nonce}'s added, released at {@code now} by {@code token}. */
    private Map<Long, ReleasedId> remembering(long nonce, long token, long now) {
        // In the order released, as the index keeps them.
        Map<Long, ReleasedId> next = new LinkedHashMap<>(released);
        next.remove(nonce);
        next.put(nonce, new ReleasedId(nonce, token, now + GrantIds.REMEMBER_MILLIS));
        return next;
    }

    @Override
    @Nullable
    public ReleasedId releasedId(long nonce, long now) {
        ReleasedId r = released.get(nonce);
        if (r == null) {
            r = index.releasedId(nonce);
        }
        return r == null || r.forgottenAt(now) ? null : r;
    }

    /** Every released grant id this view remembers at {@code now}, the index's and this round's, oldest first. */
    List<ReleasedId> releasedIds(long now) {
        checkCurrent();
        List<ReleasedId> result = new ArrayList<>(index.released().size() + released.size());
        for (ReleasedId r : index.released()) {
            if (released.containsKey(r.nonce()) == false && r.forgottenAt(now) == false) {
                result.add(r);
            }
        }
        for (ReleasedId r : released.values()) {
            if (r.forgottenAt(now) == false) {
                result.add(r);
            }
        }
        return result;
    }

    @Override
    public Held renewed(Grant match, Grant renewed, long now) {
        return new Held(HolderOutcome.DONE, with(renewed, lastToken), renewed, List.of());
    }

    /** This state with {@code grant} put (new, or replacing the grant with its token), and this last token. */
    private LockState with(Grant grant, long lastToken) {
        Map<Long, Grant> nextPut = new HashMap<>(put);
        nextPut.put(grant.token(), grant);
        return new LockState(index, generation, lastToken, nextPut, removed, released);
    }

    @Override
    public Held unchanged(HolderOutcome outcome, List<Grant> holders) {
        return new Held(outcome, this, null, holders);
    }

    @Override
    public List<Grant> liveOn(String path, long now) {
        return onPath(path).stream().filter(g -> g.expiredAt(now) == false).toList();
    }

    /** The live grants on {@code prefix} or below it, by path, then token. */
    List<Grant> liveAtOrBelow(String prefix, long now) {
        return liveAtOrBelow(prefix, now, null, Integer.MAX_VALUE).grants();
    }

    /**
     * One page of the live grants on {@code prefix} or below it, by path, then token: the live grants of the first
     * {@code maxPaths} paths after {@code after} (all of a path's holders, never part of them), and the last path of
     * the page when more paths follow. Costs {@code O(log n)} plus the page, not the table.
     *
     * @param prefix   the top of the subtree (valid); {@link TreePath#ROOT} for every grant
     * @param now      the current time, epoch milliseconds
     * @param after    the last path of the previous page, or null for the first page
     * @param maxPaths at most this many paths, at least 1
     * @return the page
     * @throws IllegalStateException if this state's index changed since it was taken
     */
    public GrantPage liveAtOrBelow(String prefix, long now, @Nullable String after, int maxPaths) {
        checkCurrent();
        // One path more than the page, to know whether another page follows.
        List<Grant> stored = new ArrayList<>();
        int paths = 0;
        if (after == null || prefix.compareTo(after) > 0) {
            paths += addLive(index.onPath(prefix), now, stored);
        }
        NavigableMap<String, List<Grant>> below = index.below(prefix);
        if (after != null && below.isEmpty() == false) {
            if (after.compareTo(below.lastKey()) >= 0) {
                below = Collections.emptyNavigableMap();
            } else if (after.compareTo(below.firstKey()) >= 0) {
                below = below.tailMap(after, false);
            }
        }
        for (Iterator<List<Grant>> it = below.values().iterator(); paths <= maxPaths && it.hasNext(); ) {
            paths += addLive(it.next(), now, stored);
        }
        List<Grant> result = new ArrayList<>(stored);
        for (Grant g : put.values()) {
            if (g.expiredAt(now) == false
                    && TreePath.isAtOrBelow(g.path(), prefix)
                    && (after == null || g.path().compareTo(after) > 0)) {
                result.add(g);
            }
        }
        result.sort(BY_PATH_THEN_TOKEN);
        // The stored paths stop after maxPaths + 1 of them; the round's own grants may add paths before that.
        int end = 0;
        int kept = 0;
        while (end < result.size()) {
            String path = result.get(end).path();
            if (kept == maxPaths) {
                return new GrantPage(result.subList(0, end), result.get(end - 1).path());
            }
            kept++;
            while (end < result.size() && result.get(end).path().equals(path)) {
                end++;
            }
        }
        return new GrantPage(result, null);
    }

    /** Adds the grants of one path that are stored and live; 1 if there was one, else 0. */
    private int addLive(List<Grant> onPath, long now, List<Grant> into) {
        int before = into.size();
        for (Grant g : onPath) {
            if (isStoredAndLive(g, now)) {
                into.add(g);
            }
        }
        return into.size() > before ? 1 : 0;
    }

    /** Every grant of this view, live or not (the index's, less those released, renewed ones as renewed), by token. */
    List<Grant> grants() {
        checkCurrent();
        List<Grant> result = new ArrayList<>(index.size() + put.size());
        index.forEach(g -> {
            if (removed.contains(g.token()) == false && put.containsKey(g.token()) == false) {
                result.add(g);
            }
        });
        result.addAll(put.values());
        result.sort(BY_TOKEN);
        return result;
    }

    /**
     * Whether this state, decided from {@code earlier}, released a grant {@code earlier} had: then acquires waiting
     * in the namespace may succeed now.
     *
     * @param earlier a state this one was decided from, in the same round
     * @return {@code true} if a grant of {@code earlier} is gone
     */
    public boolean releasedSince(LockState earlier) {
        for (long token : removed) {
            if (earlier.removed.contains(token) == false) {
                return true;
            }
        }
        for (long token : earlier.put.keySet()) {
            if (put.containsKey(token) == false) {
                return true;
            }
        }
        return false;
    }

    /** The number of live grants at {@code now}. */
    int liveCount(long now) {
        int live = index.size() - removed.size();
        for (Grant g : index.expiredAt(now)) {
            if (removed.contains(g.token()) == false && put.containsKey(g.token()) == false) {
                live--;
            }
        }
        for (Grant g : put.values()) {
            boolean stored = index.byToken(g.token()) != null;
            if (stored == false && g.expiredAt(now) == false) {
                live++;
            } else if (stored && g.expiredAt(now)) {
                live--;
            }
        }
        return live;
    }

    /** The live grants on exactly {@code path}, this round's changes included, in token order. */
    private List<Grant> onPath(String path) {
        List<Grant> stored = index.onPath(path);
        List<Grant> result = null;
        for (Grant g : stored) {
            if (removed.contains(g.token()) || put.containsKey(g.token())) {
                if (result == null) {
                    result = new ArrayList<>(stored.subList(0, stored.indexOf(g)));
                }
            } else if (result != null) {
                result.add(g);
            }
        }
        for (Grant g : put.values()) {
            if (g.path().equals(path)) {
                if (result == null) {
                    result = new ArrayList<>(stored);
                }
                result.add(g);
            }
        }
        if (result == null) {
            return stored;
        }
        result.sort(BY_TOKEN);
        return result;
    }

    /** Adds up to {@code limit} live grants strictly below {@code path} to {@code into}. */
    private void collectBelow(String path, long now, int limit, List<Grant> into) {
        int found = 0;
        for (Grant g : put.values()) {
            if (found < limit && g.expiredAt(now) == false && TreePath.isProperAncestor(path, g.path())) {
                into.add(g);
                found++;
            }
        }
        for (List<Grant> grants : index.below(path).values()) {
            for (Grant g : grants) {
                if (found >= limit) {
                    return;
                }
                if (isStoredAndLive(g, now)) {
                    into.add(g);
                    found++;
                }
            }
        }
    }

    /** A stored grant that this round has neither released nor renewed, live at {@code now}. */
    private boolean isStoredAndLive(Grant g, long now) {
        return g.expiredAt(now) == false && removed.contains(g.token()) == false && put.containsKey(g.token()) == false;
    }

    @Nullable
    private Grant byNonce(long nonce, long now) {
        for (Grant g : put.values()) {
            if (g.nonce() == nonce && g.expiredAt(now) == false) {
                return g;
            }
        }
        Grant stored = index.byNonce(nonce);
        return stored != null && isStoredAndLive(stored, now) ? stored : null;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException if this state's index changed since it was taken
     */
    @Override
    @Nullable
    public Grant findByNonce(String path, String owner, long nonce, long now) {
        // Release starts by finding its grant: a stale state is refused here, before it decides anything.
        checkCurrent();
        Grant g = byNonce(nonce, now);
        return g != null && g.path().equals(path) && g.owner().equals(owner) ? g : null;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException if this state's index changed since it was taken
     */
    @Override
    @Nullable
    public Grant find(String path, String owner, long token, long now) {
        // Release and renew start by finding their grant: a stale state is refused here, before they decide.
        checkCurrent();
        Grant g = put.get(token);
        if (g == null && removed.contains(token) == false) {
            g = index.byToken(token);
        }
        return g != null && g.path().equals(path) && g.owner().equals(owner) && g.expiredAt(now) == false ? g : null;
    }

    private void checkCurrent() {
        if (isCurrent() == false) {
            throw new IllegalStateException("the lock index changed since this state was taken");
        }
    }
}
