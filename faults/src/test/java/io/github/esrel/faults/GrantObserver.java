package io.github.esrel.faults;

import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.path.TreePath;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An observer of tree-lock grants that trusts nothing the lock service says about itself: the workers
 * report each grant when {@code acquire} returns it and each release before they send it, and the
 * observer checks two rules on what it saw.
 *
 * <ol>
 *   <li><b>No overlapping conflicting grants.</b> When a grant is reported, no other reported grant that
 *       conflicts with it under the tree rules (same path with one exclusive, or an exclusive ancestor) may
 *       still be held: reported and not yet released, with its lease still running by its holder's own
 *       clock ({@link TreeLock#isHeld()}). The observed interval of a grant lies inside its real one (it
 *       starts after the server granted and ends before the release is sent), so an overlap seen here is an
 *       overlap that happened. A grant whose holder's lease ran out before the other was reported is not a
 *       violation: leases end by design, and fencing covers what the late holder writes.</li>
 *   <li><b>Fencing tokens strictly increase per path.</b> A request sent after a grant on the same path
 *       was returned must get a larger token (whatever the modes: tokens order every grant on a path). The
 *       order is judged on the observer's own sequence counter, read when the request is sent
 *       ({@link #sending()}) and when its grant is reported, so it needs no clock.</li>
 * </ol>
 *
 * <p>Thread-safe. Violations are kept as messages; the checks cost a little per grant, well under a
 * lock round trip.
 */
final class GrantObserver {

    private final List<TreeLock> live = new ArrayList<>();
    private final Map<TreePath, Grants> byPath = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    private long sequence;
    private long checked;
    private long expiredOverlaps;

    /** Grants of one path in the order they were reported, with the running maximum of their tokens. */
    private static final class Grants {
        final List<long[]> seqAndMaxToken = new ArrayList<>();

        long maxTokenReportedBefore(long seq) {
            int lo = 0;
            int hi = seqAndMaxToken.size() - 1;
            long max = Long.MIN_VALUE;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (seqAndMaxToken.get(mid)[0] < seq) {
                    max = seqAndMaxToken.get(mid)[1];
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return max;
        }

        void add(long seq, long token) {
            long max = seqAndMaxToken.isEmpty()
                    ? token
                    : Math.max(token, seqAndMaxToken.get(seqAndMaxToken.size() - 1)[1]);
            seqAndMaxToken.add(new long[] {seq, max});
        }
    }

    /**
     * Call just before sending an acquire request.
     *
     * @return the ticket to pass to {@link #granted} if the request is granted
     */
    synchronized long sending() {
        return ++sequence;
    }

    /** Call as soon as {@code acquire} returned {@code lock}, before using it. */
    synchronized void granted(TreeLock lock, long ticket) {
        checked++;
        // A grant whose answer came back after its own lease ended (packets dropped for longer than the lease) is
        // not held when acquire returns it: TreeLock's contract is that work checks isHeld() and writes fenced, so it
        // overlaps like a grant whose lease ended, not like two holders.
        boolean held = lock.isHeld();
        for (TreeLock other : live) {
            if (conflict(lock, other)) {
                if (held && other.isHeld()) {
                    violations.add(lock + " granted while " + other + " was held");
                } else {
                    expiredOverlaps++;
                }
            }
        }
        Grants grants = byPath.computeIfAbsent(lock.path(), p -> new Grants());
        long before = grants.maxTokenReportedBefore(ticket);
        if (before != Long.MIN_VALUE && lock.token() <= before) {
            violations.add(lock + " has a token not above " + before
                    + ", the token of a grant on the same path returned before this request was sent");
        }
        grants.add(++sequence, lock.token());
        live.add(lock);
    }

    /** Call before sending the release of {@code lock} (or giving up on it). */
    synchronized void releasing(TreeLock lock) {
        live.remove(lock);
    }

    /** Tree rule: two grants conflict on a path both hold where at least one holds it exclusively. */
    static boolean conflict(TreeLock a, TreeLock b) {
        if (a.path().equals(b.path())) {
            return a.mode() == LockMode.EXCLUSIVE || b.mode() == LockMode.EXCLUSIVE;
        }
        if (a.path().isAncestorOf(b.path())) {
            return a.mode() == LockMode.EXCLUSIVE; // b holds a's path shared
        }
        if (b.path().isAncestorOf(a.path())) {
            return b.mode() == LockMode.EXCLUSIVE;
        }
        return false;
    }

    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    /** Grants checked so far. */
    synchronized long checked() {
        return checked;
    }

    /** Conflicting grants reported while the earlier holder's lease had already ended: allowed, counted. */
    synchronized long expiredOverlaps() {
        return expiredOverlaps;
    }

    /** Grants reported and not yet released. */
    synchronized int live() {
        return live.size();
    }
}
