package io.github.esrel.lock;

import io.github.esrel.path.TreePath;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One live lock from {@link TreeLocks#list}: a granted path, its mode, and the holders whose leases
 * have not expired. A shared lock may have many holders, an exclusive one has exactly one. The shared
 * locks each grant holds on its ancestors are implied, not listed.
 *
 * @param path the locked path
 * @param mode the mode the holders were granted
 * @param holders the live holders, never empty
 */
public record LockInfo(TreePath path, LockMode mode, List<Holder> holders) {

    /**
     * Checks the components and copies {@code holders}.
     *
     * @param path the locked path
     * @param mode the mode the holders were granted
     * @param holders the live holders; copied
     * @throws NullPointerException if a component is {@code null} or {@code holders} contains {@code null}
     */
    public LockInfo {
        Objects.requireNonNull(path, "path cannot be null");
        Objects.requireNonNull(mode, "mode cannot be null");
        holders = List.copyOf(holders);
    }

    /**
     * A holder of a lock.
     *
     * @param owner who holds it
     * @param token the fencing token of this holder's grant on this path
     * @param expiresAt when its lease ends unless renewed
     */
    public record Holder(String owner, long token, Instant expiresAt) {}
}
