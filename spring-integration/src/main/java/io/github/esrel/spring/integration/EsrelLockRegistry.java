package io.github.esrel.spring.integration;

import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.PathNames;
import io.github.esrel.path.TreePath;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A Spring Integration {@code LockRegistry} on esrel's tree locks: each key is an exclusive tree lock on one path
 * segment (the key escaped, see {@link #pathOf(Object)}) under a prefix, in the namespace of the {@link TreeLocks}
 * it is given (its index, its backend: the esrel plugin or lock documents, its owner).
 *
 * <pre>{@code
 * @Bean
 * EsrelLockRegistry lockRegistry(ElasticsearchClient client) {
 *     return EsrelLockRegistry.of(b -> b.treeLocks(TreeLocks.of(t -> t.client(client).index("orders")))
 *         .ttl(Duration.ofSeconds(30)));
 * }
 * }</pre>
 *
 * <p>As Spring's JDBC and Redis registries: {@link #obtain(Object)} returns the same lock for a key (a bounded LRU
 * cache), re-entry is local to the JVM, the lease is renewed while held, and {@link EsrelLock#token()} gives the
 * fencing token of the hold. Thread-safe.
 */
public final class EsrelLockRegistry implements LineRegistry {

    /** The default prefix of the lock paths. */
    public static final TreePath DEFAULT_PREFIX = TreePath.of("/spring-integration/locks");

    /** The default lease of a lock (renewed in the background while held). */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(60);

    /** The default number of locks kept by {@link #obtain(Object)}: 256, as Spring's JDBC and Redis registries. */
    public static final int DEFAULT_CACHE_CAPACITY = 256;

    private final TreeLocks treeLocks;
    private final PathNames names;
    private final Duration ttl;
    private final boolean autoRenew;
    private final Map<String, EsrelLock> locks;

    private EsrelLockRegistry(Builder b) {
        this.treeLocks = Objects.requireNonNull(b.treeLocks, "treeLocks cannot be null");
        this.names = PathNames.under(b.prefix);
        this.ttl = b.ttl;
        this.autoRenew = b.autoRenew;
        int capacity = b.cacheCapacity;
        this.locks = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, EsrelLock> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * Builds a registry with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the options on the builder it is given and returns it
     * @return the new registry
     * @throws NullPointerException if no {@link TreeLocks} was set
     */
    public static EsrelLockRegistry of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * A builder with the defaults: prefix {@link #DEFAULT_PREFIX}, lease {@link #DEFAULT_TTL}, renewed in the
     * background. The {@link TreeLocks} is required.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The lock of a key: the same object for the same key while it stays in the cache.
     *
     * @param lockKey the key; its {@code toString()} names the lock
     * @return the lock, not yet held
     * @throws NullPointerException if {@code lockKey} is {@code null}
     */
    @Override
    public EsrelLock obtain(Object lockKey) {
        String key = key(lockKey);
        synchronized (locks) {
            return locks.computeIfAbsent(key, k -> new EsrelLock(this, names.path(k)));
        }
    }

    /**
     * The tree-lock path of a key: the prefix and one segment, the key's {@code toString()} as esrel's one mapping of
     * names to paths, {@link PathNames}, writes it (as it is, with {@code %}, {@code /}, control characters, unpaired
     * surrogates and the dots of {@code .} and {@code ..} percent-encoded; the empty key is {@code %}). So a key never
     * nests under another, and it is the path ShedLock's {@code EsrelLockProvider} gives the same name under the same
     * prefix.
     *
     * @param lockKey the key
     * @return the prefix with the key's segment
     * @throws NullPointerException if {@code lockKey} is {@code null}
     * @throws IllegalArgumentException if the path would be longer than {@value TreePath#MAX_BYTES} UTF-8 bytes
     */
    public TreePath pathOf(Object lockKey) {
        return names.path(key(lockKey));
    }

    /**
     * The key whose lock is at {@code path}, as its {@code toString()}: the inverse of {@link #pathOf(Object)}.
     *
     * @param path a path
     * @return the key's string, or empty if {@code path} is not a child of the prefix
     */
    public java.util.Optional<String> keyOf(TreePath path) {
        return names.name(path);
    }

    private static String key(Object lockKey) {
        return Objects.requireNonNull(lockKey, "lockKey cannot be null").toString();
    }

    /**
     * Drops from the cache the locks that no thread holds and that were last locked or unlocked more than
     * {@code age} milliseconds ago.
     *
     * @param age in milliseconds
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long before = System.nanoTime() - Duration.ofMillis(age).toNanos();
        synchronized (locks) {
            locks.values().removeIf(l -> l.unusedSince(before));
        }
    }

    /**
     * Renews, now, the lease of the lock of {@code lockKey} held by the current thread, for the lease it has.
     *
     * @param lockKey the key
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws IllegalStateException if the lock is not in the cache or its lease was lost
     */
    @Override
    public void renewLock(Object lockKey) {
        renew(lockKey, null);
    }

    /**
     * Renews, now, the lease of the lock of {@code lockKey} held by the current thread for {@code ttl} from now,
     * which later (background) renewals keep.
     *
     * @param lockKey the key
     * @param ttl the new lease, at least 1 ms
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws IllegalStateException if the lock is not in the cache or its lease was lost
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        renew(lockKey, Objects.requireNonNull(ttl, "ttl cannot be null"));
    }

    private void renew(Object lockKey, @Nullable Duration newTtl) {
        EsrelLock lock;
        synchronized (locks) {
            lock = locks.get(key(lockKey));
        }
        if (lock == null) {
            throw new IllegalStateException("no lock obtained for " + lockKey);
        }
        if (!lock.renew(newTtl)) {
            throw new IllegalStateException("could not renew the lock at " + lock.path());
        }
    }

    TreeLocks treeLocks() {
        return treeLocks;
    }

    Duration ttl() {
        return ttl;
    }

    boolean autoRenew() {
        return autoRenew;
    }

    @Override
    public String toString() {
        return "EsrelLockRegistry[" + treeLocks.index() + ", " + names.prefix() + "]";
    }

    /** Options of an {@link EsrelLockRegistry}. */
    public static final class Builder {
        private @Nullable TreeLocks treeLocks;
        private TreePath prefix = DEFAULT_PREFIX;
        private Duration ttl = DEFAULT_TTL;
        private boolean autoRenew = true;
        private int cacheCapacity = DEFAULT_CACHE_CAPACITY;

        private Builder() {}

        /**
         * The tree locks the registry's locks are taken with (required). The registry does not close them.
         *
         * @param treeLocks the provider
         * @return this builder
         */
        public Builder treeLocks(TreeLocks treeLocks) {
            this.treeLocks = Objects.requireNonNull(treeLocks, "treeLocks cannot be null");
            return this;
        }

        /**
         * The path under which each key's segment lives. Default {@link #DEFAULT_PREFIX}.
         *
         * @param prefix an absolute tree path such as {@code /integration/locks}
         * @return this builder
         * @throws IllegalArgumentException if not a valid {@link TreePath}
         */
        public Builder prefix(String prefix) {
            this.prefix = TreePath.of(prefix);
            return this;
        }

        /**
         * The lease of a lock taken with {@code lock()}, {@code tryLock(...)} or {@code lockInterruptibly()}.
         * Default {@link #DEFAULT_TTL}.
         *
         * @param ttl at least 1 ms
         * @return this builder
         * @throws IllegalArgumentException if shorter than 1 ms
         */
        public Builder ttl(Duration ttl) {
            if (ttl == null || ttl.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("ttl must be at least 1ms, got " + ttl);
            }
            this.ttl = ttl;
            return this;
        }

        /**
         * Whether a held lock's lease is renewed in the background (every third of it). Default {@code true};
         * without it a lock ends with its lease unless {@link EsrelLockRegistry#renewLock} is called, as with
         * Spring's JDBC registry.
         *
         * @param autoRenew false to renew only by hand
         * @return this builder
         */
        public Builder autoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
            return this;
        }

        /**
         * How many locks {@link EsrelLockRegistry#obtain(Object)} keeps (least recently used dropped first).
         * Default {@link #DEFAULT_CACHE_CAPACITY}.
         *
         * @param cacheCapacity at least 1
         * @return this builder
         * @throws IllegalArgumentException if below 1
         */
        public Builder cacheCapacity(int cacheCapacity) {
            if (cacheCapacity < 1) {
                throw new IllegalArgumentException("cacheCapacity must be at least 1, got " + cacheCapacity);
            }
            this.cacheCapacity = cacheCapacity;
            return this;
        }

        /**
         * Builds the registry.
         *
         * @return the registry
         * @throws NullPointerException if no {@link TreeLocks} was set
         */
        public EsrelLockRegistry build() {
            return new EsrelLockRegistry(this);
        }
    }
}
