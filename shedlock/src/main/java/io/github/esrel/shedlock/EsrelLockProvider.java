package io.github.esrel.shedlock;

import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.DocumentTreeLocks;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.PluginTreeLocks;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLockException;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.PathNames;
import io.github.esrel.path.TreePath;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.jspecify.annotations.Nullable;

/**
 * A ShedLock {@link ExtensibleLockProvider} on esrel's tree locks: each lock name is an exclusive lock on one path
 * under a {@linkplain Builder#prefix prefix} (default {@value #DEFAULT_PREFIX}) in the namespace of the
 * {@link TreeLocks} the application gives, which it builds, shares and closes itself.
 *
 * <pre>{@code
 * TreeLocks treeLocks = TreeLocks.of(b -> b.client(es).index("jobs"));   // plugin if installed, else documents
 * LockProvider provider = EsrelLockProvider.of(treeLocks);
 * }</pre>
 *
 * <h2>Locks</h2>
 * <ul>
 *   <li>{@link #lock} asks once for an {@link LockMode#EXCLUSIVE exclusive} lock on the name's path, without
 *       waiting and without background renewal, leased for the configuration's
 *       {@link LockConfiguration#getLockAtMostFor() lockAtMostFor} (at least 1 ms). A lock held elsewhere, or by
 *       this very provider (tree locks are not reentrant), gives {@link Optional#empty()}.</li>
 *   <li>{@link SimpleLock#unlock()} releases the lock, unless {@code lockAtLeastFor} has not passed yet: then the
 *       lease is cut short to end when it passes (counted from just before the lock was requested, so never
 *       earlier than ShedLock's {@code lockAtLeastUntil}) and the lock ends by itself.</li>
 *   <li>{@link SimpleLock#extend} renews the lease for the new {@code lockAtMostFor} from now; a lock whose lease
 *       has run out (by this client's monotonic clock, which never lets it outlive the server's lease) or been
 *       lost is not extended ({@link Optional#empty()}).</li>
 *   <li>Locks are {@link EsrelSimpleLock}s: {@link EsrelSimpleLock#token()} is the fencing token of the grant.</li>
 * </ul>
 *
 * <p>Durations are taken from the configuration ({@code lockAtMostFor}, {@code lockAtLeastFor}), never its
 * absolute instants: no client instant is compared with the server's.
 *
 * <h2>Whose clock decides expiry</h2>
 * With the plugin ({@link PluginTreeLocks}) the lease is counted by the Elasticsearch node on its own clock, from
 * the moment it grants or renews the lock: clients' clocks do not matter. With the plugin-less fallback
 * ({@link DocumentTreeLocks}) the client writes the lease's end into the lock document from its own clock
 * ({@link TreeLocks.Builder#clock}), and every other client judges it with its own: the fallback is as safe as the
 * clocks of the clients agree (NTP) to well within the lease.
 *
 * <h2>Errors</h2>
 * A request the cluster fails or refuses (a {@link TreeLockException}: unreachable, no index, not authorised) is
 * thrown as ShedLock's {@link LockException} with the {@code TreeLockException} as its cause, as ShedLock's own
 * providers wrap their storage's exceptions; ShedLock's task executor then does not run the task.
 *
 * <p>Immutable and thread-safe. Locks whose lease was cut short or never released are forgotten on a later
 * {@link #lock} call once their lease has run out.
 */
public final class EsrelLockProvider implements ExtensibleLockProvider {

    /** The default prefix of the lock paths. */
    public static final String DEFAULT_PREFIX = "/shedlock";

    private static final Duration MIN_LEASE = Duration.ofMillis(1);

    private final TreeLocks treeLocks;
    private final PathNames names;
    /** Handles issued and not released: released (locally forgotten) once their lease has run out. */
    private final Set<TreeLock> lingering = ConcurrentHashMap.newKeySet();

    private EsrelLockProvider(Builder b) {
        this.treeLocks = Objects.requireNonNull(b.treeLocks, "treeLocks cannot be null");
        this.names = PathNames.under(b.prefix);
    }

    /**
     * A provider on {@code treeLocks} with the default prefix {@value #DEFAULT_PREFIX}.
     *
     * @param treeLocks the tree locks, not {@code null}; the application closes them
     * @return the new provider
     * @throws NullPointerException if {@code treeLocks} is {@code null}
     */
    public static EsrelLockProvider of(TreeLocks treeLocks) {
        return builder().treeLocks(treeLocks).build();
    }

    /**
     * A builder; {@link Builder#treeLocks} is required.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The tree locks the locks are taken with.
     *
     * @return the tree locks given to the builder
     */
    public TreeLocks treeLocks() {
        return treeLocks;
    }

    /**
     * The path under which every lock name is one segment.
     *
     * @return the prefix
     */
    public TreePath prefix() {
        return names.prefix();
    }

    /**
     * The path a lock name is locked on: the {@linkplain #prefix() prefix} and one segment, as esrel's one mapping of
     * names to paths, {@link PathNames}, writes it (the name as it is, with {@code %}, {@code /}, control characters,
     * unpaired surrogates and the dots of {@code .} and {@code ..} percent-encoded; the same path as Spring
     * Integration's {@code EsrelLockRegistry} gives the same key under the same prefix). Distinct names give distinct
     * paths, none below another.
     *
     * @param name the lock name, not empty
     * @return the path
     * @throws IllegalArgumentException if the name is empty or the path would be longer than
     *     {@value TreePath#MAX_BYTES} UTF-8 bytes
     */
    public TreePath path(String name) {
        if (Objects.requireNonNull(name, "name cannot be null").isEmpty()) {
            throw new IllegalArgumentException("a lock name must not be empty");
        }
        return names.path(name);
    }

    /**
     * The lock name of a path of this provider, the inverse of {@link #path(String)}.
     *
     * @param path a path
     * @return the name, or empty if {@code path} is not a child of the prefix
     */
    public Optional<String> name(TreePath path) {
        return names.name(path).filter(name -> !name.isEmpty());
    }

    /**
     * Tries once, without waiting, to take the exclusive lock of the configuration's name for its
     * {@code lockAtMostFor}.
     *
     * @param lockConfiguration the name and durations, not {@code null}
     * @return the lock, an {@link EsrelSimpleLock}; empty if it is held (by anyone, this provider included)
     * @throws LockException if the cluster could not be asked or refused the request (the cause says why)
     * @throws IllegalArgumentException if the name's path would be too long
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        sweep();
        String name = lockConfiguration.getName();
        TreePath path = path(name);
        long start = System.nanoTime();
        AcquireResult<TreeLock> result;
        try {
            result = treeLocks.acquire(LockRequest.of(b -> b.path(path)
                    .mode(LockMode.EXCLUSIVE)
                    .ttl(lease(lockConfiguration.getLockAtMostFor()))
                    .maxWait(Duration.ZERO)
                    .autoRenew(false)));
        } catch (TreeLockException e) {
            throw new LockException("cannot lock " + name + " (" + path + "): " + e.getMessage(), e);
        }
        return result.lock().map(l -> {
            lingering.add(l);
            return new EsrelSimpleLock(this, lockConfiguration, l, start);
        });
    }

    static Duration lease(Duration d) {
        return d.compareTo(MIN_LEASE) < 0 ? MIN_LEASE : d;
    }

    /** Ends a lock: releases it, or cuts its lease to what is left of lockAtLeastFor. */
    void unlock(EsrelSimpleLock lock, Duration lockAtLeastFor, long startNanos) {
        TreeLock handle = lock.handle();
        Duration left = lockAtLeastFor.minusNanos(System.nanoTime() - startNanos);
        try {
            if (left.compareTo(MIN_LEASE) >= 0 && handle.renew(left)) {
                return; // ends by itself when lockAtLeastFor has passed; swept after that
            }
            lingering.remove(handle);
            handle.release();
        } catch (TreeLockException e) {
            throw new LockException("cannot unlock " + lock.name() + " (" + handle.path() + "): " + e.getMessage(), e);
        }
    }

    /** Renews the lease for the new lockAtMostFor; empty if the lease ran out or was lost. */
    Optional<SimpleLock> extend(EsrelSimpleLock lock, LockConfiguration newConfiguration) {
        TreeLock handle = lock.handle();
        long start = System.nanoTime();
        boolean renewed;
        try {
            renewed = handle.renew(lease(newConfiguration.getLockAtMostFor()));
        } catch (TreeLockException e) {
            throw new LockException("cannot extend " + lock.name() + " (" + handle.path() + "): " + e.getMessage(), e);
        }
        return renewed ? Optional.of(new EsrelSimpleLock(this, newConfiguration, handle, start)) : Optional.empty();
    }

    /** Forgets the handles whose lease has run out (their release finds them gone on the server). */
    private void sweep() {
        for (TreeLock l : lingering) {
            if (!l.isHeld() && lingering.remove(l)) {
                try {
                    l.release();
                } catch (RuntimeException e) {
                    // Best effort: the lease has ended anyway.
                }
            }
        }
    }

    @Override
    public String toString() {
        return "EsrelLockProvider{" + treeLocks.backend() + " " + treeLocks.index() + " " + names.prefix() + '}';
    }

    /** Configures an {@link EsrelLockProvider}: validated at once, immutable once built. */
    public static final class Builder {

        private @Nullable TreeLocks treeLocks;
        private TreePath prefix = TreePath.of(DEFAULT_PREFIX);

        private Builder() {}

        /**
         * Required: the tree locks (the plugin's {@link PluginTreeLocks} or the fallback {@link DocumentTreeLocks},
         * as {@link TreeLocks#of} chooses). Their namespace (index) holds the lock paths; their owner is shown to
         * the requests a lock blocks. The application closes them, after the scheduler.
         *
         * @param treeLocks the tree locks, not {@code null}
         * @return this builder
         * @throws NullPointerException if {@code treeLocks} is {@code null}
         */
        public Builder treeLocks(TreeLocks treeLocks) {
            this.treeLocks = Objects.requireNonNull(treeLocks, "treeLocks cannot be null");
            return this;
        }

        /**
         * The path under which each lock name is one segment. Default {@value EsrelLockProvider#DEFAULT_PREFIX}. A lock name holds
         * a shared lock on the prefix and its ancestors, so an exclusive tree lock on the prefix (or the global
         * lock on {@code /}) keeps every scheduled task from starting while it is held.
         *
         * @param prefix a normalised path ({@link TreePath#of}), {@code /} allowed
         * @return this builder
         * @throws NullPointerException if {@code prefix} is {@code null}
         * @throws IllegalArgumentException if it is not a valid path
         */
        public Builder prefix(String prefix) {
            this.prefix = TreePath.of(prefix);
            return this;
        }

        /**
         * Creates the provider.
         *
         * @return the new provider
         * @throws NullPointerException if no {@link #treeLocks} were given
         */
        public EsrelLockProvider build() {
            Objects.requireNonNull(treeLocks, "treeLocks cannot be null");
            return new EsrelLockProvider(this);
        }
    }
}
