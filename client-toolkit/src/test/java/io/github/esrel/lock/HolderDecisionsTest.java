package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.lock.LockDocs.Change;
import io.github.esrel.lock.LockDocs.Doc;
import io.github.esrel.lock.LockDocs.Holder;
import io.github.esrel.lock.LockDocs.Target;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The decisions of one grant on a lock document, taken again after a write whose outcome is unknown: the grant's own
 * holder is recognised, a write is never applied twice, and a holder found gone after its own removal counts as
 * released.
 */
class HolderDecisionsTest {

    private static final long NOW = 1_764_504_000_000L;
    private static final Target ROOT = new Target("fs", LockDocs.KIND_PATH, "/", List.of("/"));

    private static Doc doc(long token, Holder... holders) {
        return new Doc(ROOT, 3, 1, token, List.of(holders));
    }

    private static Holder holder(String grant, long token, long expiresAt) {
        return new Holder(grant, "w", LockMode.SHARED, token, expiresAt, "/a", LockMode.EXCLUSIVE);
    }

    @Test
    void shouldTakeAFreeDocumentAndRecogniseItsOwnEarlierWrite() {
        LockDocs.Decide<Object> take =
                HolderDecisions.take("g1", "w", LockMode.SHARED, NOW + 1000, "/a", LockMode.EXCLUSIVE, () -> NOW);
        Change<Object> first = take.decide(doc(5), null);
        assertThat(first.write()).isTrue();
        assertThat(first.holders()).extracting(Holder::grant).containsExactly("g1");
        long token = (Long) first.result();
        // Its answer was lost; read again, the document shows the write applied: nothing more is written.
        Change<Object> again = take.decide(doc(token, first.holders().get(0)), first);
        assertThat(again.write()).isFalse();
        assertThat(again.result()).isEqualTo(token);
        // Not applied (a conflict with another writer): decided anew.
        Change<Object> redo = take.decide(doc(token + 7, holder("g2", token + 7, NOW + 1000)), first);
        assertThat(redo.write()).isTrue();
        assertThat((Long) redo.result()).isGreaterThan(token + 7);
        assertThat(redo.holders()).extracting(Holder::grant).containsExactly("g2", "g1");
    }

    @Test
    void shouldTakeADocumentLockOnlyOnceAndNameTheHoldersInTheWay() {
        LockDocs.Decide<List<LockConflict>> take = HolderDecisions.takeDocument("g1", "w", NOW + 1000, () -> NOW);
        Change<List<LockConflict>> first = take.decide(doc(0), null);
        assertThat(first.write()).isTrue();
        assertThat(first.result()).isEmpty();
        assertThat(take.decide(doc(9, first.holders().get(0)), first).write()).isFalse();
        Change<List<LockConflict>> busy = take.decide(doc(9, holder("g2", 9, NOW + 5)), null);
        assertThat(busy.write()).isFalse();
        assertThat(busy.result()).extracting(LockConflict::path).containsExactly("/a");
    }

    @Test
    void shouldCountAHolderGoneAfterItsOwnUnsureRemovalAsReleasedWhileHeld() {
        LockDocs.Decide<Boolean> remove = HolderDecisions.remove("g1", () -> NOW);
        Holder mine = holder("g1", 4, NOW + 1000);
        Holder other = holder("g2", 5, NOW + 1000);
        Change<Boolean> first = remove.decide(doc(5, mine, other), null);
        assertThat(first.write()).isTrue();
        assertThat(first.result()).as("live when removed").isTrue();
        assertThat(first.holders()).containsExactly(other);
        // Read again after the removal's answer was lost (or its copy conflicted with it): gone, released.
        Change<Boolean> again = remove.decide(doc(5, other), first);
        assertThat(again.write()).isFalse();
        assertThat(again.result()).isTrue();
        // Gone without a removal of its own: lost before the release.
        assertThat(remove.decide(doc(5, other), null).result()).isFalse();
        // Still there after an unsure removal: that one was not applied; removed now.
        assertThat(remove.decide(doc(6, mine, other), first).write()).isTrue();
        // There, but its lease over: removed, and reported lost.
        Change<Boolean> dead = HolderDecisions.remove("g1", () -> NOW + 2000).decide(doc(5, mine), null);
        assertThat(dead.write()).isTrue();
        assertThat(dead.result()).isFalse();
    }

    @Test
    void shouldRenewOnlyALiveHolderAndTheSameWayWhenDecidedAgain() {
        LockDocs.Decide<Boolean> renew = HolderDecisions.renew("g1", NOW + 9000, () -> NOW);
        Change<Boolean> first = renew.decide(doc(4, holder("g1", 4, NOW + 1000)), null);
        assertThat(first.result()).isTrue();
        assertThat(first.holders()).extracting(Holder::expiresAt).containsExactly(NOW + 9000);
        Change<Boolean> again = renew.decide(doc(4, first.holders().get(0)), first);
        assertThat(again.result()).isTrue();
        assertThat(again.holders()).isEqualTo(first.holders());
        assertThat(renew.decide(doc(4), first).result()).as("gone").isFalse();
        assertThat(renew.decide(doc(4, holder("g1", 4, NOW)), null).result())
                .as("expired")
                .isFalse();
    }
}
