package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.LockMode;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import io.github.esrel.plugin.lock.grant.TreePath;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The stored grants of one namespace, indexed so that a decision costs {@code O(depth · log n)} instead of the
 * {@code O(n)} of a scan of the whole table: by token, by nonce, by path (sorted, so that a subtree is one range of
 * keys) and by expiry. Mutable: it changes only by {@link #apply} (the changes of a stored round) and
 * {@link #pruneExpired}. It also remembers the grant ids released lately ({@link GrantIds}: at most
 * {@link GrantIds#MAX_REMEMBERED}, the oldest forgotten first). Decisions are not taken here but on immutable views of
 * an index and of the changes decided so far in a round; {@link #generation()} tells a view that the index changed
 * under it.
 *
 * <p>Not thread-safe: one round at a time per namespace uses it, as the group commit guarantees.
 */
final class LockIndex {

    /** The order in which grants expire; the token breaks ties, so that no two grants compare equal. */
    private static final Comparator<Grant> BY_EXPIRY =
            Comparator.comparingLong(Grant::expiresAtMillis).thenComparingLong(Grant::token);

    private final Map<Long, Grant> byToken = new HashMap<>();
    private final Map<Long, Grant> byNonce = new HashMap<>();
    /** The grants on exactly each path, in token order. */
    private final NavigableMap<String, List<Grant>> byPath = new TreeMap<>();

    private final NavigableSet<Grant> byExpiry = new TreeSet<>(BY_EXPIRY);
    /** The released grant ids by nonce, in the order they were released. */
    private final LinkedHashMap<Long, ReleasedId> released = new LinkedHashMap<>();

    private long lastToken;
    private long generation;

    /**
     * An index of {@code grants}.
     *
     * @param lastToken the last fencing token issued, 0 if none
     * @param grants    the stored grants, live or not, with distinct tokens
     * @throws IllegalArgumentException if {@code lastToken} is negative or two grants share a token
     */
    LockIndex(long lastToken, Collection<Grant> grants) {
        this(lastToken, grants, List.of());
    }

    /**
     * An index of {@code grants} that remembers the released grant ids {@code released}.
     *
     * @param lastToken the last fencing token issued, 0 if none
     * @param grants    the stored grants, live or not, with distinct tokens
     * @param released  the released grant ids, oldest first
     * @throws IllegalArgumentException if {@code lastToken} is negative or two grants share a token
     */
    LockIndex(long lastToken, Collection<Grant> grants, Collection<ReleasedId> released) {
        released.forEach(this::remember);
        if (lastToken < 0) {
            throw new IllegalArgumentException("last_token must not be negative, got " + lastToken);
        }
        this.lastToken = lastToken;
        for (Grant g : grants) {
            if (byToken.containsKey(g.token())) {
                throw new IllegalArgumentException("two grants with token " + g.token());
            }
            add(g);
        }
    }

    /** The last fencing token issued, 0 if none. */
    long lastToken() {
        return lastToken;
    }

    /** The number of stored grants, live or not. */
    int size() {
        return byToken.size();
    }

    /** Incremented by every change: a view of an older generation no longer describes this index. */
    long generation() {
        return generation;
    }

    @Nullable
    Grant byToken(long token) {
        return byToken.get(token);
    }

    @Nullable
    Grant byNonce(long nonce) {
        return byNonce.get(nonce);
    }

    /** The released grant id with this nonce, remembered or forgotten by now; null if none. */
    @Nullable
    ReleasedId releasedId(long nonce) {
        return released.get(nonce);
    }

    /** The released grant ids remembered, oldest first. */
    Collection<ReleasedId> released() {
        return Collections.unmodifiableCollection(released.values());
    }

    /** The stored grants on exactly {@code path}, in token order; unmodifiable. */
    List<Grant> onPath(String path) {
        List<Grant> grants = byPath.get(path);
        return grants == null ? List.of() : Collections.unmodifiableList(grants);
    }

    /**
     * The stored grants strictly below {@code path}, by path: one range of the sorted paths, since every path
     * below {@code /a} starts with {@code /a/}, and {@code 0} is the character after {@code /}.
     */
    NavigableMap<String, List<Grant>> below(String path) {
        if (path.equals(TreePath.ROOT)) {
            return byPath.tailMap(TreePath.ROOT, false);
        }
        return byPath.subMap(path + "/", true, path + "0", false);
    }

    /** Every stored grant, in no particular order. */
    void forEach(Consumer<Grant> action) {
        byToken.values().forEach(action);
    }

    /** The stored grants expired at {@code now}, earliest first. */
    Collection<Grant> expiredAt(long now) {
        return byExpiry.headSet(new Grant("", LockMode.SHARED, "", Long.MIN_VALUE, now + 1, 0), false);
    }

    /**
     * Removes the grants expired at {@code now}. They are gone for every decision anyway (an expired grant is
     * absent whether or not it is stored); this keeps the index, and what a decision walks, to the live ones.
     *
     * @return the grants removed, earliest expiry first
     */
    List<Grant> pruneExpired(long now) {
        // The oldest released ids first: they are forgotten in about the order they were released.
        boolean forgot = false;
        for (Iterator<ReleasedId> it = released.values().iterator(); it.hasNext(); ) {
            if (it.next().forgottenAt(now) == false) {
                break;
            }
            it.remove();
            forgot = true;
        }
        Collection<Grant> expired = expiredAt(now);
        if (expired.isEmpty()) {
            if (forgot) {
                generation++;
            }
            return List.of();
        }
        List<Grant> removed = new ArrayList<>(expired);
        removed.forEach(g -> remove(g.token()));
        generation++;
        return removed;
    }

    /**
     * Applies the changes of a stored round: puts (new or renewed grants, replacing any grant of the same token),
     * removals, and the last token.
     *
     * @throws IllegalArgumentException if the last token would go back
     */
    void apply(RoundChanges changes) {
        if (changes.lastToken() < lastToken) {
            throw new IllegalArgumentException(
                    "last_token would go back from " + lastToken + " to " + changes.lastToken());
        }
        for (long token : changes.removed()) {
            remove(token);
        }
        for (Grant g : changes.put()) {
            remove(g.token());
            add(g);
        }
        changes.released().forEach(this::remember);
        lastToken = changes.lastToken();
        generation++;
    }

    /** Remembers a released grant id, as the newest, forgetting the oldest beyond {@link GrantIds#MAX_REMEMBERED}. */
    private void remember(ReleasedId r) {
        released.remove(r.nonce());
        released.put(r.nonce(), r);
        for (Iterator<Long> it = released.keySet().iterator(); released.size() > GrantIds.MAX_REMEMBERED; ) {
            it.next();
            it.remove();
        }
    }

    private void add(Grant g) {
        byToken.put(g.token(), g);
        byNonce.put(g.nonce(), g);
        List<Grant> onPath = byPath.computeIfAbsent(g.path(), p -> new ArrayList<>(1));
        int i = onPath.size();
        while (i > 0 && onPath.get(i - 1).token() > g.token()) {
            i--;
        }
        onPath.add(i, g);
        byExpiry.add(g);
    }

    private void remove(long token) {
        Grant g = byToken.remove(token);
        if (g == null) {
            return;
        }
        byNonce.remove(g.nonce(), g);
        // Every grant of byToken is on its path too.
        List<Grant> onPath = Objects.requireNonNull(byPath.get(g.path()));
        onPath.remove(g);
        if (onPath.isEmpty()) {
            byPath.remove(g.path());
        }
        byExpiry.remove(g);
    }
}
