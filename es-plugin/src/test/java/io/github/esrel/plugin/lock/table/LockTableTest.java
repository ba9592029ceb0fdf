package io.github.esrel.plugin.lock.table;

import static io.github.esrel.plugin.lock.grant.LockMode.EXCLUSIVE;
import static io.github.esrel.plugin.lock.grant.LockMode.SHARED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.Caller;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.LockMode;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import io.github.esrel.plugin.lock.store.AcquireOutcome;
import io.github.esrel.plugin.lock.store.HolderOutcome;
import io.github.esrel.plugin.lock.table.LockTable.AcquireResult;
import io.github.esrel.plugin.lock.table.LockTable.HolderResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.elasticsearch.common.Strings;
import org.elasticsearch.common.xcontent.XContentHelper;
import org.elasticsearch.xcontent.XContentFactory;
import org.elasticsearch.xcontent.XContentType;
import org.junit.jupiter.api.Test;

class LockTableTest {

    private static final long NOW = 1_764_504_000_000L;
    private static final long TTL = 60_000;
    private static final int MAX = 1000;

    private long nonce = 1;

    private LockTable table = LockTable.EMPTY;

    private AcquireResult acquire(String path, LockMode mode, String owner) {
        AcquireResult r = table.acquire(path, mode, owner, TTL, nonce++, NOW, MAX);
        table = r.table();
        return r;
    }

    private Grant grant(String path, LockMode mode, String owner) {
        AcquireResult r = acquire(path, mode, owner);
        assertThat(r.outcome())
                .as("%s %s for %s in %s", mode, path, owner, table)
                .isEqualTo(AcquireOutcome.GRANTED);
        return r.grant();
    }

    private void assertRefused(String path, LockMode mode, Grant... blockers) {
        AcquireResult r = table.acquire(path, mode, "other", TTL, nonce++, NOW, MAX);
        assertThat(r.outcome()).as("%s %s", mode, path).isEqualTo(AcquireOutcome.CONFLICT);
        assertThat(r.conflicts()).containsExactly(blockers);
        assertThat(r.table()).isSameAs(table);
    }

    private void assertGrantable(String path, LockMode mode) {
        assertThat(table.acquire(path, mode, "other", TTL, nonce++, NOW, MAX).outcome())
                .as("%s %s", mode, path)
                .isEqualTo(AcquireOutcome.GRANTED);
    }

    @Test
    void shouldLetSharedLocksShareAPath() {
        Grant a = grant("/a/b", SHARED, "w1");
        Grant b = grant("/a/b", SHARED, "w2");
        Grant c = grant("/a/b", SHARED, "w1"); // the same owner again: another grant, another token
        assertThat(List.of(a.token(), b.token(), c.token())).doesNotHaveDuplicates();
        assertRefused("/a/b", EXCLUSIVE, a, b, c);
    }

    @Test
    void shouldLetExclusiveConflictWithEverythingOnItsPath() {
        Grant x = grant("/a/b", EXCLUSIVE, "w1");
        assertRefused("/a/b", EXCLUSIVE, x);
        assertRefused("/a/b", SHARED, x);
    }

    @Test
    void shouldNotBeReentrant() {
        Grant x = grant("/a", EXCLUSIVE, "w1");
        AcquireResult again = table.acquire("/a", EXCLUSIVE, "w1", TTL, nonce++, NOW, MAX);
        assertThat(again.outcome()).isEqualTo(AcquireOutcome.CONFLICT);
        assertThat(again.conflicts()).containsExactly(x);
    }

    @Test
    void shouldRejectExclusiveLockOnDirectoryWhenFileBelowIsLocked() {
        Grant file = grant("/clinton/projects/elasticsearch/README.txt", EXCLUSIVE, "w1");
        assertRefused("/clinton", EXCLUSIVE, file);
        assertRefused("/clinton/projects", EXCLUSIVE, file);
        assertRefused("/", EXCLUSIVE, file);
        // The ancestors are only shared: other shared locks on them, and files beside, are fine.
        assertGrantable("/clinton", SHARED);
        assertGrantable("/clinton/projects/elasticsearch", SHARED);
        assertGrantable("/clinton/projects/elasticsearch/other.txt", EXCLUSIVE);
        assertGrantable("/", SHARED);
    }

    @Test
    void shouldRejectExclusiveLockOnDirectoryWhenSharedLockBelowIsHeld() {
        Grant shared = grant("/a/b/c", SHARED, "w1");
        assertRefused("/a", EXCLUSIVE, shared);
        assertRefused("/a/b", EXCLUSIVE, shared);
        assertGrantable("/a/b/c/d", EXCLUSIVE);
    }

    @Test
    void shouldRejectAnyLockBelowAnExclusivelyLockedDirectory() {
        Grant dir = grant("/a/b", EXCLUSIVE, "w1");
        assertRefused("/a/b/c", SHARED, dir);
        assertRefused("/a/b/c", EXCLUSIVE, dir);
        assertRefused("/a/b/c/d/e.txt", EXCLUSIVE, dir);
        assertRefused("/a", EXCLUSIVE, dir);
        assertGrantable("/a", SHARED);
        assertGrantable("/a/c", EXCLUSIVE);
        assertGrantable("/a/bc", EXCLUSIVE); // a sibling whose name starts alike, not a child
    }

    @Test
    void shouldLetASharedDirectoryLockCoexistWithLocksBelow() {
        grant("/a", SHARED, "w1");
        grant("/a/b", EXCLUSIVE, "w2");
        grant("/a/c", SHARED, "w3");
        assertThat(table.grants()).hasSize(3);
    }

    @Test
    void shouldMakeAnExclusiveRootTheGlobalLock() {
        Grant root = grant("/", EXCLUSIVE, "w1");
        assertRefused("/", SHARED, root);
        assertRefused("/a", SHARED, root);
        assertRefused("/a/b/c", EXCLUSIVE, root);
        table = LockTable.EMPTY;
        Grant file = grant("/x", SHARED, "w1");
        assertRefused("/", EXCLUSIVE, file);
        assertGrantable("/", SHARED);
    }

    @Test
    void shouldReportEveryGrantInTheWay() {
        Grant a = grant("/d/a", EXCLUSIVE, "w1");
        Grant b = grant("/d/b", SHARED, "w2");
        grant("/e", EXCLUSIVE, "w3");
        Grant d = grant("/d", SHARED, "w4");
        assertRefused("/d", EXCLUSIVE, a, b, d);
    }

    @Test
    void shouldForgetExpiredGrantsIncludingTheirAncestorLocks() {
        AcquireResult r = table.acquire("/a/b/c.txt", EXCLUSIVE, "dead", 1000, nonce++, NOW, MAX);
        table = r.table();
        assertThat(table.acquire("/a", EXCLUSIVE, "w", TTL, nonce++, NOW + 999, MAX)
                        .outcome())
                .isEqualTo(AcquireOutcome.CONFLICT);
        AcquireResult later = table.acquire("/a", EXCLUSIVE, "w", TTL, nonce++, NOW + 1000, MAX);
        assertThat(later.outcome()).isEqualTo(AcquireOutcome.GRANTED);
        // The new table no longer stores the expired grant.
        assertThat(later.table().grants()).extracting(Grant::owner).containsExactly("w");
        assertThat(table.live(NOW + 1000)).isEmpty();
        assertThat(table.pruned(NOW + 1000).grants()).isEmpty();
        assertThat(table.pruned(NOW).grants()).hasSize(1);
        assertThat(table.pruned(NOW)).isSameAs(table);
    }

    @Test
    void shouldIssueStrictlyIncreasingTokensEvenWhenTheClockGoesBack() {
        long last = 0;
        long now = NOW;
        for (int i = 0; i < 200; i++) {
            now += (i % 7 == 0) ? -5000 : 3; // the clock jumps back now and then
            AcquireResult r = table.acquire("/p" + i, EXCLUSIVE, "w", TTL, nonce++, now, MAX);
            assertThat(r.grant().token()).isGreaterThan(last);
            last = r.grant().token();
            table = r.table();
            assertThat(table.lastToken()).isEqualTo(last);
        }
        // Releasing and expiring do not lower the counter.
        table = table.pruned(now + 10 * TTL);
        assertThat(table.grants()).isEmpty();
        assertThat(table.acquire("/p0", EXCLUSIVE, "w", TTL, nonce++, now - 100_000, MAX)
                        .grant()
                        .token())
                .isGreaterThan(last);
    }

    @Test
    void shouldStartTokensAtTheClockSoThatALostTableCannotReissueThem() {
        long first = LockTable.EMPTY.nextToken(NOW);
        assertThat(first).isEqualTo(NOW * 1000);
        // A table that issued many tokens is still below a new table started a millisecond later.
        LockTable busy = new LockTable(first + 999, List.of());
        assertThat(LockTable.EMPTY.nextToken(NOW + 1)).isGreaterThan(busy.lastToken());
        assertThat(new LockTable(Long.MAX_VALUE - 1, List.of()).nextToken(NOW)).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> new LockTable(Long.MAX_VALUE, List.of()).nextToken(NOW))
                .isInstanceOf(IllegalStateException.class);
        assertThat(LockTable.EMPTY.nextToken(Long.MAX_VALUE)).isEqualTo(1); // an absurd clock is ignored
    }

    @Test
    void shouldReturnTheGrantOfAnEarlierWriteOfTheSameRequest() {
        AcquireResult first = table.acquire("/a", EXCLUSIVE, "w", TTL, 42, NOW, MAX);
        AcquireResult retry = first.table().acquire("/a", EXCLUSIVE, "w", TTL, 42, NOW + 5, MAX);
        assertThat(retry.outcome()).isEqualTo(AcquireOutcome.GRANTED);
        assertThat(retry.grant()).isEqualTo(first.grant());
        assertThat(retry.table()).isSameAs(first.table());
    }

    @Test
    void shouldAnswerAnAcquireSentAgainWithItsGrantIdWithTheSameGrant() {
        long id = GrantIds.nonce("resent-acquire-0001");
        AcquireResult first = table.acquire("/a", EXCLUSIVE, "w", TTL, id, NOW, MAX);
        table = first.table();
        AcquireResult again = table.acquire("/a", EXCLUSIVE, "w", 5 * TTL, id, NOW + 900, MAX);
        assertThat(again.outcome()).isEqualTo(AcquireOutcome.GRANTED);
        assertThat(again.grant()).as("same token, same lease").isEqualTo(first.grant());
        assertThat(again.table()).isSameAs(table);
        // The same id for another acquisition: refused, never answered with a grant of another path or owner.
        for (AcquireResult other : List.of(
                table.acquire("/b", EXCLUSIVE, "w", TTL, id, NOW, MAX),
                table.acquire("/a", SHARED, "w", TTL, id, NOW, MAX),
                table.acquire("/a", EXCLUSIVE, "w2", TTL, id, NOW, MAX),
                table.acquire("/a", EXCLUSIVE, "w", ALICE, TTL, id, NOW, MAX))) {
            assertThat(other.outcome()).isEqualTo(AcquireOutcome.ID_REUSED);
            assertThat(other.grant()).isEqualTo(first.grant());
            assertThat(other.table()).isSameAs(table);
        }
    }

    @Test
    void shouldAnswerAReleaseSentAgainWithItsGrantIdAsReleased() {
        long id = GrantIds.nonce("resent-release-0001");
        Grant g = table.acquire("/a/b", EXCLUSIVE, "w", TTL, id, NOW, MAX).grant();
        table = table.acquire("/a/b", EXCLUSIVE, "w", TTL, id, NOW, MAX).table();
        table = table.acquire("/a/b", EXCLUSIVE, "w", TTL, id, NOW, MAX).table();
        HolderResult released = table.release("/a/b", "w", g.token(), id, Caller.of(null), NOW + 10, false);
        assertThat(released.outcome()).isEqualTo(HolderOutcome.DONE);
        assertThat(released.grant()).isEqualTo(g);
        table = released.table();
        assertThat(table.grants()).isEmpty();
        assertThat(table.released())
                .containsExactly(new ReleasedId(id, g.token(), NOW + 10 + GrantIds.REMEMBER_MILLIS));

        // The same release again (its answer was lost): released, and nothing changes.
        HolderResult again = table.release("/a/b", "w", g.token(), id, Caller.of(null), NOW + 20, false);
        assertThat(again.outcome()).isEqualTo(HolderOutcome.DONE);
        assertThat(again.table()).isSameAs(table);
        // Without the grant id, or with another one, the grant is simply gone: not held.
        assertThat(table.release("/a/b", "w", g.token(), NOW + 20, false).outcome())
                .isEqualTo(HolderOutcome.NOT_HELD);
        assertThat(table.release("/a/b", "w", g.token(), 77, Caller.of(null), NOW + 20, false)
                        .outcome())
                .isEqualTo(HolderOutcome.NOT_HELD);
        // A late copy of its acquire grants nothing.
        assertThat(table.acquire("/a/b", EXCLUSIVE, "w", TTL, id, NOW + 30, MAX).outcome())
                .isEqualTo(AcquireOutcome.ID_REUSED);
        // Forgotten after REMEMBER_MILLIS: a release sent again that late is a release of a grant that is gone.
        long later = NOW + 10 + GrantIds.REMEMBER_MILLIS;
        assertThat(table.release("/a/b", "w", g.token(), id, Caller.of(null), later, false)
                        .outcome())
                .isEqualTo(HolderOutcome.NOT_HELD);
        assertThat(table.acquire("/a/b", EXCLUSIVE, "w", TTL, id, later, MAX).outcome())
                .isEqualTo(AcquireOutcome.GRANTED);
    }

    @Test
    void shouldReleaseByGrantIdAloneAndSpendTheIdEvenWithoutAGrant() {
        long id = GrantIds.nonce("unknown-outcome-01");
        Grant g = table.acquire("/a", EXCLUSIVE, "w", TTL, id, NOW, MAX).grant();
        table = table.acquire("/a", EXCLUSIVE, "w", TTL, id, NOW, MAX).table();
        assertThat(table.release("/a", "w2", 0, id, Caller.of(null), NOW, false).outcome())
                .as("another owner's")
                .isEqualTo(HolderOutcome.DONE);
        HolderResult released = table.release("/a", "w", 0, id, Caller.of(null), NOW, false);
        assertThat(released.outcome()).isEqualTo(HolderOutcome.DONE);
        assertThat(released.grant()).isEqualTo(g);
        table = released.table();
        assertThat(table.grants()).isEmpty();
        assertThat(table.release("/a", "w", g.token(), id, Caller.of(null), NOW, false)
                        .outcome())
                .isEqualTo(HolderOutcome.DONE);

        // An acquire whose outcome stayed unknown and was not granted: the id is spent all the same.
        long never = GrantIds.nonce("never-granted-001");
        HolderResult spent = table.release("/b", "w", 0, never, Caller.of(null), NOW, false);
        assertThat(spent.outcome()).isEqualTo(HolderOutcome.DONE);
        assertThat(spent.grant()).isNull();
        table = spent.table();
        assertThat(table.acquire("/b", EXCLUSIVE, "w", TTL, never, NOW + 1, MAX).outcome())
                .as("its acquire, arriving late")
                .isEqualTo(AcquireOutcome.ID_REUSED);
        assertThatThrownBy(() -> table.release("/b", "w", 0, 0, Caller.of(null), NOW, false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRefuseGrantsBeyondTheTableLimit() {
        for (int i = 0; i < 3; i++) {
            table = table.acquire("/f" + i, SHARED, "w", TTL, nonce++, NOW, 3).table();
        }
        AcquireResult full = table.acquire("/g", SHARED, "w", TTL, nonce++, NOW, 3);
        assertThat(full.outcome()).isEqualTo(AcquireOutcome.FULL);
        assertThat(full.table()).isSameAs(table);
        // Conflicts are reported before fullness: they say more.
        assertThat(table.acquire("/f0", EXCLUSIVE, "w", TTL, nonce++, NOW, 3).outcome())
                .isEqualTo(AcquireOutcome.CONFLICT);
        // Expired grants do not count.
        assertThat(table.acquire("/g", SHARED, "w", TTL, nonce++, NOW + TTL, 3).outcome())
                .isEqualTo(AcquireOutcome.GRANTED);
    }

    @Test
    void shouldReleaseOnlyWithTheRightOwnerAndToken() {
        Grant g = grant("/a/b", EXCLUSIVE, "w1");
        HolderResult wrongOwner = table.release("/a/b", "w2", g.token(), NOW, false);
        assertThat(wrongOwner.outcome()).isEqualTo(HolderOutcome.HELD_BY_OTHER);
        assertThat(wrongOwner.holders()).containsExactly(g);
        assertThat(table.release("/a/b", "w1", g.token() + 1, NOW, false).outcome())
                .isEqualTo(HolderOutcome.HELD_BY_OTHER);
        assertThat(table.release("/a", "w1", g.token(), NOW, false).outcome())
                .as("only implied on /a")
                .isEqualTo(HolderOutcome.NOT_HELD);
        assertThat(table.release("/z", "w1", 5, NOW, false).outcome())
                .as("never held")
                .isEqualTo(HolderOutcome.NOT_HELD);
        assertThat(table.release("/a/b", "w1", g.token(), NOW + TTL, false).outcome())
                .as("expired")
                .isEqualTo(HolderOutcome.NOT_HELD);

        HolderResult released = table.release("/a/b", "w1", g.token(), NOW, false);
        assertThat(released.outcome()).isEqualTo(HolderOutcome.DONE);
        assertThat(released.grant()).isEqualTo(g);
        table = released.table();
        assertThat(table.grants()).isEmpty();
        assertThat(table.lastToken()).isEqualTo(g.token());
        assertThat(table.release("/a/b", "w1", g.token(), NOW, false).outcome())
                .as("released twice")
                .isEqualTo(HolderOutcome.NOT_HELD);
        // Its ancestor locks went with it.
        grant("/a", EXCLUSIVE, "w2");
    }

    @Test
    void shouldReleaseOneSharedGrantAndKeepTheOthers() {
        Grant a = grant("/d", SHARED, "w1");
        Grant b = grant("/d", SHARED, "w1");
        table = table.release("/d", "w1", a.token(), NOW, false).table();
        assertThat(table.grants()).containsExactly(b);
        assertRefused("/d", EXCLUSIVE, b);
    }

    @Test
    void shouldCountAMissingGrantAsReleasedAfterAnUncertainWrite() {
        assertThat(table.release("/a", "w1", 7, NOW, true).outcome()).isEqualTo(HolderOutcome.DONE);
        Grant other = grant("/a", SHARED, "w2");
        HolderResult r = table.release("/a", "w1", 7, NOW, true);
        assertThat(r.outcome()).isEqualTo(HolderOutcome.DONE);
        assertThat(r.table().grants()).containsExactly(other);
    }

    @Test
    void shouldRenewOnlyALiveGrantOfTheRightOwnerAndToken() {
        Grant g = grant("/a", SHARED, "w1");
        HolderResult renewed = table.renew("/a", "w1", g.token(), 5000, NOW + 100);
        assertThat(renewed.outcome()).isEqualTo(HolderOutcome.DONE);
        assertThat(renewed.grant().expiresAtMillis()).isEqualTo(NOW + 5100);
        assertThat(renewed.grant().token()).isEqualTo(g.token());
        assertThat(renewed.table().grants()).containsExactly(renewed.grant());
        assertThat(table.renew("/a", "w2", g.token(), 5000, NOW).outcome()).isEqualTo(HolderOutcome.HELD_BY_OTHER);
        assertThat(table.renew("/a", "w1", g.token(), 5000, NOW + TTL).outcome())
                .isEqualTo(HolderOutcome.NOT_HELD);
        assertThat(table.renew("/b", "w1", g.token(), 5000, NOW).outcome()).isEqualTo(HolderOutcome.NOT_HELD);
        // A renewed lease outlives the original one.
        table = renewed.table();
        assertThat(table.renew("/a", "w1", g.token(), 1, NOW + TTL + 1000).outcome())
                .isEqualTo(HolderOutcome.NOT_HELD);
        table = table.renew("/a", "w1", g.token(), TTL * 2, NOW + 200).table();
        assertThat(table.live(NOW + TTL + 1000)).hasSize(1);
    }

    @Test
    void shouldListGrantsAtOrBelowAPrefixSortedByPathAndToken() {
        Grant b2 = grant("/a/b", SHARED, "w2");
        Grant c = grant("/a/c", EXCLUSIVE, "w1");
        grant("/ab", EXCLUSIVE, "w1");
        Grant a = grant("/a", SHARED, "w3");
        Grant b1 = grant("/a/b", SHARED, "w1");
        assertThat(table.liveAtOrBelow("/a", NOW)).containsExactly(a, b2, b1, c);
        assertThat(table.liveAtOrBelow("/", NOW)).hasSize(5);
        assertThat(table.liveAtOrBelow("/a/b", NOW + TTL)).isEmpty();
    }

    @Test
    void shouldRoundTripTheStoredDocument() throws IOException {
        grant("/a/b", SHARED, "w1");
        grant("/😀/ü", EXCLUSIVE, "host \"x\"");
        table = table.acquire("/a", SHARED, "w3", 1, Long.MIN_VALUE, NOW, MAX).table();
        table = table.release("/a", "w3", 0, GrantIds.nonce("round-trip-release"), Caller.of(null), NOW, false)
                .table();
        assertThat(table.released()).hasSize(1);
        String json = Strings.toString(table.toXContent(XContentFactory.jsonBuilder(), "fs", NOW));
        Map<String, Object> source = XContentHelper.convertToMap(XContentType.JSON.xContent(), json, false);
        assertThat(source).containsEntry("namespace", "fs").containsEntry("updated_at", NOW);
        assertThat(LockTable.fromSource(source)).isEqualTo(table);
        assertThat(LockTable.fromSource(Map.of("last_token", 5, "grants", List.of())))
                .isEqualTo(new LockTable(5, List.of()));
        assertThatThrownBy(() -> LockTable.fromSource(Map.of("grants", List.of())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("corrupt");
    }

    private static final AuthenticatedUser ALICE = new AuthenticatedUser("alice", "file1");

    @Test
    void shouldLetOnlyTheBoundUserOrAnOverridingCallerReleaseOrRenewABoundGrant() {
        AcquireResult acquired = table.acquire("/a/b", EXCLUSIVE, "w1", ALICE, TTL, nonce++, NOW, MAX);
        table = acquired.table();
        Grant g = acquired.grant();
        assertThat(g.boundTo()).isEqualTo(ALICE);
        Caller bob = Caller.of(new AuthenticatedUser("bob", "file1"));
        Caller otherAlice = Caller.of(new AuthenticatedUser("alice", "ldap1"));
        Caller nobody = Caller.of(null);

        for (Caller other : List.of(bob, otherAlice, nobody)) {
            HolderResult release = table.release("/a/b", "w1", g.token(), other, NOW, false);
            assertThat(release.outcome()).as("%s", other).isEqualTo(HolderOutcome.BOUND_TO_OTHER_USER);
            assertThat(release.holders()).containsExactly(g);
            assertThat(release.table()).isSameAs(table);
            assertThat(table.renew("/a/b", "w1", g.token(), other, TTL, NOW).outcome())
                    .as("%s", other)
                    .isEqualTo(HolderOutcome.BOUND_TO_OTHER_USER);
        }
        // The owner and token still come first: a wrong one is a 409 / 404 whoever asks.
        assertThat(table.release("/a/b", "w2", g.token(), bob, NOW, false).outcome())
                .isEqualTo(HolderOutcome.HELD_BY_OTHER);

        HolderResult renewed = table.renew("/a/b", "w1", g.token(), Caller.of(ALICE), 2 * TTL, NOW + 1);
        assertThat(renewed.outcome()).isEqualTo(HolderOutcome.DONE);
        assertThat(renewed.grant().boundTo()).as("renewal keeps the binding").isEqualTo(ALICE);
        assertThat(renewed.grant().expiresAtMillis()).isEqualTo(NOW + 1 + 2 * TTL);
        assertThat(table.release("/a/b", "w1", g.token(), bob.overriding(), NOW, false)
                        .outcome())
                .isEqualTo(HolderOutcome.DONE);
        assertThat(table.release("/a/b", "w1", g.token(), Caller.of(ALICE), NOW, false)
                        .outcome())
                .isEqualTo(HolderOutcome.DONE);
    }

    @Test
    void shouldLetAnyoneReleaseAnUnboundGrant() {
        Grant g = grant("/a", EXCLUSIVE, "w1");
        assertThat(g.boundTo()).isNull();
        assertThat(table.release("/a", "w1", g.token(), Caller.of(ALICE), NOW, false)
                        .outcome())
                .isEqualTo(HolderOutcome.DONE);
        assertThat(table.release("/a", "w1", g.token(), Caller.of(null), NOW, false)
                        .outcome())
                .isEqualTo(HolderOutcome.DONE);
    }

    @Test
    void shouldStoreTheBinding() throws IOException {
        table = table.acquire("/a", EXCLUSIVE, "w1", ALICE, TTL, 7, NOW, MAX).table();
        table = table.acquire("/b", EXCLUSIVE, "w1", null, TTL, 8, NOW, MAX).table();
        String json = Strings.toString(table.toXContent(XContentFactory.jsonBuilder(), "fs", NOW));
        assertThat(json).contains("\"bound_user\":\"alice\",\"bound_realm\":\"file1\"");
        LockTable read = LockTable.fromSource(XContentHelper.convertToMap(XContentType.JSON.xContent(), json, false));
        assertThat(read).isEqualTo(table);
        assertThat(read.grants()).extracting(Grant::boundTo).containsExactly(ALICE, null);
    }

    /**
     * A model check: thousands of random requests over a small tree with a moving clock. After every step no
     * two live grants may conflict, and every token must be above all earlier ones.
     */
    @Test
    void shouldNeverHoldConflictingGrants() {
        Random random = new Random(0x7eee10c4L);
        String[] paths = {"/", "/a", "/a/x", "/a/y", "/a/x/1", "/a/x/2", "/b", "/b/x", "/ab"};
        long now = NOW;
        long lastToken = 0;
        int granted = 0;
        int refused = 0;
        List<Grant> mine = new ArrayList<>();
        for (int step = 0; step < 20_000; step++) {
            now += random.nextInt(20);
            int op = random.nextInt(10);
            if (op < 6 || mine.isEmpty()) {
                LockMode mode = random.nextInt(3) == 0 ? EXCLUSIVE : SHARED;
                String path = paths[random.nextInt(paths.length)];
                AcquireResult r = table.acquire(
                        path, mode, "w" + random.nextInt(4), 50 + random.nextInt(500), random.nextLong(), now, 6);
                if (r.outcome() == AcquireOutcome.GRANTED) {
                    granted++;
                    assertThat(r.grant().token()).isGreaterThan(lastToken);
                    lastToken = r.grant().token();
                    mine.add(r.grant());
                } else {
                    refused++;
                    for (Grant c : r.conflicts()) {
                        assertThat(c.conflictsWith(path, mode)).isTrue();
                    }
                }
                table = r.table();
            } else {
                Grant g = mine.remove(random.nextInt(mine.size()));
                HolderResult r = op < 9
                        ? table.release(g.path(), g.owner(), g.token(), now, false)
                        : table.renew(g.path(), g.owner(), g.token(), 300, now);
                boolean held = table.live(now).stream().anyMatch(x -> x.token() == g.token());
                if (held) {
                    assertThat(r.outcome()).isEqualTo(HolderOutcome.DONE);
                } else {
                    assertThat(r.outcome()).isIn(HolderOutcome.NOT_HELD, HolderOutcome.HELD_BY_OTHER);
                }
                if (op == 9 && r.outcome() == HolderOutcome.DONE) {
                    mine.add(r.grant());
                }
                table = r.table();
            }
            List<Grant> live = table.live(now);
            for (int i = 0; i < live.size(); i++) {
                for (int j = i + 1; j < live.size(); j++) {
                    assertThat(live.get(i)
                                    .conflictsWith(
                                            live.get(j).path(), live.get(j).mode()))
                            .as("step %d: %s and %s", step, live.get(i), live.get(j))
                            .isFalse();
                }
            }
        }
        assertThat(granted).isGreaterThan(3000);
        assertThat(refused).isGreaterThan(1000);
    }
}
