package io.github.esrel.lock;

import io.github.esrel.path.TreePath;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

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

    /**
     * A grant, or the conflicts in its way, or neither: the answers to the attempt were lost, and what it may have
     * been granted was given back ({@code lost} says how).
     */
    record Attempt(
            @Nullable Grant grant,
            List<LockConflict> conflicts,
            @Nullable String lost) {
        static Attempt granted(Grant g) {
            return new Attempt(g, List.of(), null);
        }

        static Attempt busy(List<LockConflict> conflicts) {
            return new Attempt(null, List.copyOf(conflicts), null);
        }

        /** Not granted: the answers were lost, and whatever was granted is given back. */
        static Attempt lost(String why) {
            return new Attempt(null, List.of(), why);
        }
    }
}
