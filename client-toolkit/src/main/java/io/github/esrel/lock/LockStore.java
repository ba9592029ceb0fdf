package io.github.esrel.lock;

import io.github.esrel.path.TreePath;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Where tree locks live: the plugin's REST API or lock documents. One attempt per call, no waiting. */
interface LockStore {

    /**
     * One attempt at a grant.
     *
     * @param serverWait how long the server may wait for conflicts to go (only used when
     *     {@link #waitsOnServer()}); zero fails fast
     */
    Attempt tryAcquire(TreePath path, LockMode mode, String owner, Duration ttl, Duration serverWait);

    /** True if {@link #tryAcquire} can wait on the server (the plugin), false if the client must poll. */
    boolean waitsOnServer();

    List<LockInfo> list(TreePath prefix);

    /** A grant: its fencing token, the server's expiry, and how to renew and release it. */
    record Grant(long token, Instant expiresAt, Lease.Ops ops) {}

    /** Either a grant or the conflicts in its way. */
    record Attempt(Grant grant, List<LockConflict> conflicts) {
        static Attempt granted(Grant g) {
            return new Attempt(g, List.of());
        }

        static Attempt busy(List<LockConflict> conflicts) {
            return new Attempt(null, List.copyOf(conflicts));
        }
    }
}
