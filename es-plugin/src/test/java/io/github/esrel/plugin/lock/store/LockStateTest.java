package io.github.esrel.plugin.lock.store;

import static io.github.esrel.plugin.lock.grant.LockMode.EXCLUSIVE;
import static io.github.esrel.plugin.lock.grant.LockMode.SHARED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.Caller;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.GrantPage;
import io.github.esrel.plugin.lock.grant.LockMode;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import io.github.esrel.plugin.lock.table.LockTable;
import io.github.esrel.plugin.lock.table.LockTable.AcquireResult;
import io.github.esrel.plugin.lock.table.LockTable.HolderResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link LockState} over a {@link LockIndex} must decide exactly as {@link LockTable}, the model whose decisions
 * the plugin's README argues correct: the same outcome, grant, conflicts and holders for every request, through
 * rounds that are stored (their changes applied to the index), rounds whose write failed (dropped), and pruning.
 */
class LockStateTest {

    private static final long NOW = 1_764_504_000_000L;
    private static final String[] PATHS = {
        "/", "/a", "/a/x", "/a/y", "/a/x/1", "/a/x/2", "/a/x/2/q", "/b", "/b/x", "/ab", "/a0", "/a.b", "/a/x0"
    };
    private static final AuthenticatedUser ALICE = new AuthenticatedUser("alice", "native");
    private static final AuthenticatedUser BOB = new AuthenticatedUser("bob", "native");

    @Test
    void shouldDecideAsTheLockTableForEveryRequest() {
        Random random = new Random(0x10c4_57a7eL);
        LockTable committedTable = LockTable.EMPTY;
        LockIndex index = new LockIndex(0, List.of());
        long now = NOW;
        List<Grant> seen = new ArrayList<>();
        List<Long> nonces = new ArrayList<>();
        Map<AcquireOutcome, Integer> acquires = new EnumMap<>(AcquireOutcome.class);
        Map<HolderOutcome, Integer> holders = new EnumMap<>(HolderOutcome.class);
        int rounds = 0;
        while (rounds < 3_000) {
            rounds++;
            LockTable table = committedTable;
            LockState state = LockState.of(index);
            int ops = 1 + random.nextInt(random.nextInt(10) == 0 ? 40 : 6);
            for (int op = 0; op < ops; op++) {
                now += random.nextInt(15);
                int kind = random.nextInt(10);
                if (kind < 5 || seen.isEmpty()) {
                    String path = PATHS[random.nextInt(PATHS.length)];
                    LockMode mode = random.nextInt(3) == 0 ? EXCLUSIVE : SHARED;
                    String owner = "w" + random.nextInt(3);
                    AuthenticatedUser bound = random.nextInt(5) == 0 ? ALICE : null;
                    long ttl = 20 + random.nextInt(400);
                    long nonce = !nonces.isEmpty() && random.nextInt(8) == 0
                            ? nonces.get(random.nextInt(nonces.size())) // a retry of an earlier request
                            : random.nextLong();
                    nonces.add(nonce);
                    AcquireResult expected = table.acquire(path, mode, owner, bound, ttl, nonce, now, 9);
                    LockState.Acquired actual =
                            state.acquire(path, mode, owner, bound, ttl, nonce, now, 9, Integer.MAX_VALUE);
                    String what = "round " + rounds + ": " + mode + " " + path + " at " + now;
                    assertThat(actual.outcome()).as(what).isEqualTo(expected.outcome());
                    assertThat(actual.grant()).as(what).isEqualTo(expected.grant());
                    assertThat(actual.conflicts()).as(what).isEqualTo(byToken(expected.conflicts()));
                    acquires.merge(expected.outcome(), 1, Integer::sum);
                    if (expected.grant() != null) {
                        seen.add(expected.grant());
                    }
                    table = expected.table();
                    state = actual.state();
                } else {
                    Grant g = seen.get(random.nextInt(seen.size()));
                    String owner = random.nextInt(6) == 0 ? "someone-else" : g.owner();
                    long token = random.nextInt(6) == 0 ? g.token() + 1 : g.token();
                    Caller caller = new Caller(random.nextBoolean() ? ALICE : BOB, random.nextInt(4) == 0);
                    HolderResult expected;
                    LockState.Held actual;
                    if (kind < 8) {
                        boolean uncertain = random.nextInt(5) == 0;
                        // Without a grant id, with the grant's own (as a client sends it, again and again), a
                        // random one, or by grant id alone.
                        int by = random.nextInt(8);
                        long nonce = by < 3 ? 0 : by < 7 ? g.nonce() : random.nextLong();
                        long named = by == 6 ? 0 : token;
                        expected = table.release(g.path(), owner, named, nonce, caller, now, uncertain);
                        actual = state.release(g.path(), owner, named, nonce, caller, now, uncertain);
                    } else {
                        long ttl = 20 + random.nextInt(400);
                        expected = table.renew(g.path(), owner, token, caller, ttl, now);
                        actual = state.renew(g.path(), owner, token, caller, ttl, now);
                        if (expected.grant() != null) {
                            seen.add(expected.grant());
                        }
                    }
                    String what = "round " + rounds + ": " + (kind < 8 ? "release " : "renew ") + g + " at " + now;
                    assertThat(actual.outcome()).as(what).isEqualTo(expected.outcome());
                    assertThat(actual.grant()).as(what).isEqualTo(expected.grant());
                    assertThat(actual.holders()).as(what).isEqualTo(byToken(expected.holders()));
                    holders.merge(expected.outcome(), 1, Integer::sum);
                    table = expected.table();
                    state = actual.state();
                }
                assertThat(state.liveCount(now)).isEqualTo(table.live(now).size());
                long at = now;
                assertThat(state.releasedIds(at))
                        .isEqualTo(table.released().stream()
                                .filter(r -> r.forgottenAt(at) == false)
                                .toList());
                assertThat(state.lastToken()).isEqualTo(table.lastToken());
                String prefix = PATHS[random.nextInt(PATHS.length)];
                assertThat(state.liveAtOrBelow(prefix, now)).isEqualTo(table.liveAtOrBelow(prefix, now));
                assertPagesOf(state, prefix, now, 1 + random.nextInt(3), table.liveAtOrBelow(prefix, now));
            }
            int fate = random.nextInt(10);
            if (fate < 8) { // stored: the changes go into the index
                index.apply(state.changes());
                committedTable = table;
            } // else the write failed: the round's decisions are dropped, on both sides
            if (random.nextInt(4) == 0) {
                for (Grant pruned : index.pruneExpired(now)) {
                    assertThat(pruned.expiredAt(now)).isTrue();
                }
            }
            assertThat(LockState.of(index).liveAtOrBelow("/", now)).isEqualTo(committedTable.liveAtOrBelow("/", now));
        }
        assertThat(acquires).containsKeys(AcquireOutcome.values());
        assertThat(holders).containsKeys(HolderOutcome.values());
        assertThat(acquires.get(AcquireOutcome.GRANTED)).isGreaterThan(1000);
        assertThat(acquires.get(AcquireOutcome.CONFLICT)).isGreaterThan(1000);
    }

    @Test
    void shouldFindASubtreeAsOneRangeOfPaths() {
        LockIndex index = new LockIndex(
                0,
                List.of(
                        grant("/a", EXCLUSIVE, 1),
                        grant("/a/b", SHARED, 2),
                        grant("/a/b/c", SHARED, 3),
                        grant("/a0", SHARED, 4),
                        grant("/a.b", SHARED, 5),
                        grant("/ab", SHARED, 6),
                        grant("/", SHARED, 7)));
        assertThat(index.below("/a").keySet()).containsExactly("/a/b", "/a/b/c");
        assertThat(index.below("/").keySet()).containsExactly("/a", "/a.b", "/a/b", "/a/b/c", "/a0", "/ab");
        assertThat(LockState.of(index).liveAtOrBelow("/a", NOW))
                .extracting(Grant::path)
                .containsExactly("/a", "/a/b", "/a/b/c");
        assertThat(LockState.of(index).liveAtOrBelow("/", NOW)).hasSize(7);
    }

    @Test
    void shouldPageTheListingByWholePaths() {
        LockIndex index = new LockIndex(
                0,
                List.of(
                        grant("/a", EXCLUSIVE, 1),
                        grant("/a/b", SHARED, 2),
                        grant("/a/b", SHARED, 3),
                        grant("/a/b/c", SHARED, 4),
                        grant("/a/d", SHARED, 5),
                        grant("/ab", SHARED, 6)));
        LockState state = LockState.of(index);

        GrantPage first = state.liveAtOrBelow("/a", NOW, null, 2);
        assertThat(first.grants()).extracting(Grant::token).containsExactly(1L, 2L, 3L);
        assertThat(first.next()).isEqualTo("/a/b");
        GrantPage second = state.liveAtOrBelow("/a", NOW, first.next(), 2);
        assertThat(second.grants()).extracting(Grant::path).containsExactly("/a/b/c", "/a/d");
        assertThat(second.next()).isNull(); // exactly full: nothing follows
        // A cursor outside the subtree: before it, the whole subtree; after it, nothing.
        assertThat(state.liveAtOrBelow("/a", NOW, "/", 10).grants()).hasSize(5);
        assertThat(state.liveAtOrBelow("/a", NOW, "/b", 10).grants()).isEmpty();
        assertThat(state.liveAtOrBelow("/a", NOW, "/a/b/c", 10).grants())
                .extracting(Grant::path)
                .containsExactly("/a/d");
    }

    /** Pages of {@code size} paths, followed from the start, list exactly {@code all}, each path whole. */
    private static void assertPagesOf(LockState state, String prefix, long now, int size, List<Grant> all) {
        List<Grant> listed = new ArrayList<>();
        String after = null;
        for (int pages = 0; pages <= all.size(); pages++) {
            GrantPage page = state.liveAtOrBelow(prefix, now, after, size);
            assertThat(page.grants().stream().map(Grant::path).distinct().count())
                    .isLessThanOrEqualTo(size);
            listed.addAll(page.grants());
            if (page.next() == null) {
                assertThat(listed).isEqualTo(all);
                return;
            }
            assertThat(page.grants()).isNotEmpty();
            assertThat(page.next())
                    .isEqualTo(page.grants().get(page.grants().size() - 1).path());
            after = page.next();
        }
        throw new AssertionError("more pages than grants under " + prefix);
    }

    @Test
    void shouldReportAtMostTheRequestedNumberOfConflicts() {
        List<Grant> grants = new ArrayList<>();
        for (int i = 1; i <= 500; i++) {
            grants.add(grant("/jobs/" + i, SHARED, i));
        }
        LockState state = LockState.of(new LockIndex(500, grants));
        LockState.Acquired r = state.acquire("/jobs", EXCLUSIVE, "w", null, 1000, 42, NOW, 100_000, 100);
        assertThat(r.outcome()).isEqualTo(AcquireOutcome.CONFLICT);
        assertThat(r.conflicts()).hasSize(100);
        assertThat(state.conflicts("/jobs", EXCLUSIVE, NOW, Integer.MAX_VALUE)).hasSize(500);
    }

    @Test
    void shouldRefuseAStateWhoseIndexChangedUnderIt() {
        LockIndex index = new LockIndex(0, List.of());
        LockState stale = LockState.of(index);
        LockState.Acquired first = LockState.of(index).acquire("/a", EXCLUSIVE, "w", null, 1000, 1, NOW, 10, 10);
        index.apply(first.state().changes());
        assertThatThrownBy(() -> stale.acquire("/a", EXCLUSIVE, "w", null, 1000, 2, NOW, 10, 10))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("changed");
        assertThat(LockState.of(index).conflicts("/a", SHARED, NOW, 10)).containsExactly(first.grant());
    }

    @Test
    void shouldRememberAtMostTheNewestReleasedIds() {
        List<ReleasedId> ids = new ArrayList<>();
        for (int i = 0; i < GrantIds.MAX_REMEMBERED + 5; i++) {
            ids.add(new ReleasedId(1000 + i, i, NOW + GrantIds.REMEMBER_MILLIS));
        }
        assertThat(new TableDocument(0, List.of(), ids).released())
                .hasSize(GrantIds.MAX_REMEMBERED)
                .startsWith(ids.get(5))
                .endsWith(ids.get(ids.size() - 1));
        LockIndex index = new LockIndex(0, List.of(), ids);
        assertThat(index.released()).hasSize(GrantIds.MAX_REMEMBERED);
        assertThat(index.releasedId(1000)).isNull();
        assertThat(index.releasedId(1005)).isEqualTo(ids.get(5));
        index.pruneExpired(NOW + GrantIds.REMEMBER_MILLIS);
        assertThat(index.released()).isEmpty();
    }

    @Test
    void shouldKeepTheLastTokenFromGoingBack() {
        LockIndex index = new LockIndex(100, List.of());
        assertThatThrownBy(() -> index.apply(new RoundChanges(99, List.of(), List.of())))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LockIndex(0, List.of(grant("/a", SHARED, 1), grant("/b", SHARED, 1))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static Grant grant(String path, LockMode mode, long token) {
        return new Grant(path, mode, "w", token, NOW + 60_000, token * 31);
    }

    private static List<Grant> byToken(List<Grant> grants) {
        return grants.stream().sorted(Comparator.comparingLong(Grant::token)).toList();
    }
}
