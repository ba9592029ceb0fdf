package io.github.esrel.lock;

import io.github.esrel.lock.LockDocs.Change;
import io.github.esrel.lock.LockDocs.Decide;
import io.github.esrel.lock.LockDocs.Holder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What one grant does to a lock document, decided on the document as read: take it, renew it, give it back. Each
 * recognises the grant's own holder by the grant's id, so that a decision taken again after a write whose outcome is
 * unknown (its answer lost, or a version conflict that its own copy, sent again on the way, also meets) finds the
 * write applied or not, and never applies it twice.
 */
final class HolderDecisions {

    private HolderDecisions() {}

    /**
     * Adds the grant's holder in mode {@code want} (a part of {@code mode} on {@code forPath}) unless a live holder
     * conflicts. The result is the token the holder got, or the conflicts (a {@code List}); a holder of this grant
     * already there is its own earlier write, applied, and its token is the result.
     */
    static Decide<Object> take(
            String grant,
            String owner,
            LockMode want,
            long expiresAt,
            String forPath,
            LockMode mode,
            LongSupplier clock) {
        return (doc, unsure) -> {
            Holder mine = doc.holder(grant);
            if (mine != null) {
                return Change.none(mine.token());
            }
            long now = clock.getAsLong();
            List<Holder> live = doc.live(now);
            List<LockConflict> conflicts = live.stream()
                    .filter(h -> !h.mode().compatibleWith(want))
                    .map(Holder::conflict)
                    .toList();
            if (!conflicts.isEmpty()) {
                return Change.none(conflicts);
            }
            long next = LockDocs.nextToken(doc.token(), now);
            List<Holder> holders = new ArrayList<>(live);
            holders.add(new Holder(grant, owner, want, next, expiresAt, forPath, mode));
            return Change.write(next, holders, next);
        };
    }

    /**
     * Takes a document lock: the grant's exclusive holder, unless any live holder is there. The result is the
     * conflicts, empty when taken (also when a holder of this grant is there already: its own earlier write).
     */
    static Decide<List<LockConflict>> takeDocument(String grant, String owner, long expiresAt, LongSupplier clock) {
        return (doc, unsure) -> {
            if (doc.holder(grant) != null) {
                return Change.none(List.of());
            }
            long now = clock.getAsLong();
            List<Holder> live = doc.live(now);
            if (!live.isEmpty()) {
                return Change.none(live.stream().map(Holder::conflict).toList());
            }
            long token = LockDocs.nextToken(doc.token(), now);
            Holder h = new Holder(
                    grant,
                    owner,
                    LockMode.EXCLUSIVE,
                    token,
                    expiresAt,
                    doc.target().key(),
                    LockMode.EXCLUSIVE);
            return Change.write(token, List.of(h), List.of());
        };
    }

    /**
     * Removes the grant's holder (and every dead holder); the result says whether it was still live when it was
     * removed. A holder found gone after a removal whose outcome was unknown was taken by that removal (applied, its
     * answer lost) or by another client, and another client only takes a holder whose lease has ended by its clock.
     * The removal was decided on a read where the lease had not ended by this client's clock: the work the holder
     * protected ended while it was held (clocks agreeing, as the fallback assumes), so the result is that read's.
     * Gone without such a removal: it was lost before.
     */
    static Decide<Boolean> remove(String grant, LongSupplier clock) {
        return (doc, unsure) -> {
            Holder mine = doc.holder(grant);
            if (mine == null) {
                return Change.none(unsure != null && unsure.result());
            }
            long now = clock.getAsLong();
            List<Holder> rest =
                    doc.live(now).stream().filter(h -> !h.grant().equals(grant)).toList();
            return Change.write(doc.token(), rest, mine.liveAt(now));
        };
    }

    /**
     * Extends the grant's holder to {@code expiresAt}, unless it is gone or already dead (lost). A renewal applied
     * and decided again finds its holder live with the new expiry, and writes it once more: the same document.
     */
    static Decide<Boolean> renew(String grant, long expiresAt, LongSupplier clock) {
        return (doc, unsure) -> {
            long now = clock.getAsLong();
            Holder mine = doc.holder(grant);
            if (mine == null || !mine.liveAt(now)) {
                return Change.none(false);
            }
            List<Holder> next = new ArrayList<>();
            for (Holder h : doc.live(now)) {
                next.add(h.grant().equals(grant) ? h.withExpiry(expiresAt) : h);
            }
            return Change.write(doc.token(), next, true);
        };
    }
}
