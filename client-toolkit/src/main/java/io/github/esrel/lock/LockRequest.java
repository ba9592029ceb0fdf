package io.github.esrel.lock;

import io.github.esrel.internal.Checks;
import io.github.esrel.path.TreePath;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What to lock and how: a path, a mode, and optionally the owner, the lease, how long to wait, and a
 * listener. Immutable.
 *
 * <pre>{@code
 * LockRequest.exclusive("/clinton/projects");                      // fail fast, provider defaults
 * LockRequest.of(b -> b.path("/clinton").mode(LockMode.SHARED)
 *     .ttl(Duration.ofSeconds(30)).maxWait(Duration.ofSeconds(5)));
 * LockRequest.global();                                            // exclusive on "/": seed 000's global lock
 * }</pre>
 */
public final class LockRequest {

    /** The longest owner accepted, in UTF-8 bytes (the plugin's limit). */
    public static final int MAX_OWNER_LENGTH = 256;

    private final TreePath path;
    private final LockMode mode;
    private final @Nullable String owner;
    private final @Nullable Duration ttl;
    private final Duration wait;
    private final boolean autoRenew;
    private final boolean bindToUser;
    private final TreeLockListener listener;

    private LockRequest(Builder b) {
        this.path = Objects.requireNonNull(b.path, "path cannot be null");
        this.mode = b.mode;
        this.owner = b.owner;
        this.ttl = b.ttl;
        this.wait = b.wait;
        this.autoRenew = b.autoRenew;
        this.bindToUser = b.bindToUser;
        this.listener = b.listener;
    }

    /**
     * Builds a request with a lambda, in the style of the elasticsearch-java client.
     *
     * @param fn sets the options on the builder it is given and returns it
     * @return the new request
     * @throws NullPointerException if no path was set
     */
    public static LockRequest of(Function<Builder, Builder> fn) {
        return fn.apply(new Builder()).build();
    }

    /**
     * A builder with the defaults: exclusive, failing fast, renewed in the background, the provider's
     * owner and lease. The path is required.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * An exclusive lock on {@code path}, failing fast, with the provider's owner and lease.
     *
     * @param path the normalised path to lock
     * @return the request
     * @throws IllegalArgumentException if the path is not valid ({@link TreePath#of})
     */
    public static LockRequest exclusive(String path) {
        return of(b -> b.path(path).mode(LockMode.EXCLUSIVE));
    }

    /**
     * A shared lock on {@code path}, failing fast, with the provider's owner and lease.
     *
     * @param path the normalised path to lock
     * @return the request
     * @throws IllegalArgumentException if the path is not valid ({@link TreePath#of})
     */
    public static LockRequest shared(String path) {
        return of(b -> b.path(path).mode(LockMode.SHARED));
    }

    /**
     * The global lock: exclusive on {@code /}. It conflicts with every lock in the namespace, and
     * waits for none of them to be released unless given a wait ({@code toBuilder().maxWait(...)}).
     *
     * @return the request
     */
    public static LockRequest global() {
        return of(b -> b.path(TreePath.ROOT).mode(LockMode.EXCLUSIVE));
    }

    /**
     * The path to lock.
     *
     * @return the path, never {@code null}
     */
    public TreePath path() {
        return path;
    }

    /**
     * The mode to lock the path in; its ancestors are locked shared in either case.
     *
     * @return the mode, by default {@link LockMode#EXCLUSIVE}
     */
    public LockMode mode() {
        return mode;
    }

    /**
     * The owner, or {@code null} for the provider's ({@link TreeLocks.Builder#owner}).
     *
     * @return the owner, or {@code null}
     */
    public @Nullable String owner() {
        return owner;
    }

    /**
     * The lease, or {@code null} for the provider's ({@link TreeLocks.Builder#ttl}).
     *
     * @return the lease duration, or {@code null}
     */
    public @Nullable Duration ttl() {
        return ttl;
    }

    /**
     * How long to wait for conflicting locks to go; zero (the default) fails fast.
     *
     * @return the longest wait, never {@code null} or negative
     */
    public Duration maxWait() {
        return wait;
    }

    /**
     * Whether the handle renews its lease in the background until closed (the default).
     *
     * @return true if the lease is renewed automatically
     */
    public boolean autoRenew() {
        return autoRenew;
    }

    /**
     * Whether the grant is bound to the authenticated user of the client (see {@link Builder#bindToUser}).
     *
     * @return true if only that user (or one allowed to override bindings) may release or renew the lock
     */
    public boolean bindToUser() {
        return bindToUser;
    }

    /**
     * The listener of this lock only, called besides the provider's.
     *
     * @return the listener, {@link TreeLockListener#NO_OP} when none was set
     */
    public TreeLockListener listener() {
        return listener;
    }

    /**
     * A builder starting from this request's settings, to derive a variant of it.
     *
     * @return a new builder; changing it leaves this request unchanged
     */
    public Builder toBuilder() {
        Builder b = new Builder()
                .path(path)
                .mode(mode)
                .maxWait(wait)
                .autoRenew(autoRenew)
                .bindToUser(bindToUser)
                .listener(listener);
        // Nullable here (the provider's defaults), so not through the setters, which refuse null.
        b.owner = owner;
        b.ttl = ttl;
        return b;
    }

    @Override
    public String toString() {
        return mode.jsonName() + " " + path + (owner == null ? "" : " for " + owner)
                + (ttl == null ? "" : " ttl " + ttl.toMillis() + "ms")
                + (wait.isZero() ? "" : " waiting up to " + wait.toMillis() + "ms")
                + (autoRenew ? "" : " without renewal") + (bindToUser ? " bound to the user" : "");
    }

    /** Builder for {@link LockRequest}. Not thread-safe. */
    public static final class Builder {
        private @Nullable TreePath path;
        private LockMode mode = LockMode.EXCLUSIVE;
        private @Nullable String owner;
        private @Nullable Duration ttl;
        private Duration wait = Duration.ZERO;
        private boolean autoRenew = true;
        private boolean bindToUser;
        private TreeLockListener listener = TreeLockListener.NO_OP;

        private Builder() {}

        /**
         * Required: the path to lock.
         *
         * @param path the path, not {@code null}
         * @return this builder
         */
        public Builder path(TreePath path) {
            this.path = Objects.requireNonNull(path, "path cannot be null");
            return this;
        }

        /**
         * Required: the path to lock, which must be normalised.
         *
         * @param path the path, such as {@code /clinton/projects}
         * @return this builder
         * @throws NullPointerException if {@code path} is {@code null}
         * @throws IllegalArgumentException if it is not ({@link TreePath#of}; use
         *     {@link TreePath#normalize} first for lenient input)
         */
        public Builder path(String path) {
            return path(TreePath.of(path));
        }

        /**
         * The mode to lock the path in. Default {@link LockMode#EXCLUSIVE}.
         *
         * @param mode the mode, not {@code null}
         * @return this builder
         */
        public Builder mode(LockMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode cannot be null");
            return this;
        }

        /**
         * Who holds the lock, shown to those it blocks and needed to release it. Default: the
         * provider's owner.
         *
         * @param owner the owner, not {@code null}
         * @return this builder
         * @throws NullPointerException if {@code owner} is {@code null}
         * @throws IllegalArgumentException if blank or longer than {@value #MAX_OWNER_LENGTH} UTF-8 bytes
         */
        public Builder owner(String owner) {
            this.owner = checkOwner(owner);
            return this;
        }

        /**
         * The lease: the lock is gone this long after it was granted or last renewed, whether or not
         * it was released. Default: the provider's (60 s unless configured). The plugin may cap it.
         *
         * @param ttl the lease, at least 1 ms
         * @return this builder
         * @throws NullPointerException if {@code ttl} is {@code null}
         * @throws IllegalArgumentException if not positive
         */
        public Builder ttl(Duration ttl) {
            this.ttl = checkTtl(ttl);
            return this;
        }

        /**
         * How long to wait for the conflicting locks to be released or to expire. Default zero: fail
         * fast. While waiting, no part of the tree is held, so waiting cannot deadlock; there is no
         * fairness (a steady stream of shared lockers can starve an exclusive one).
         *
         * @param wait the longest wait, not {@code null}
         * @return this builder
         * @throws NullPointerException if {@code wait} is {@code null}
         * @throws IllegalArgumentException if negative
         */
        public Builder maxWait(Duration wait) {
            this.wait = Checks.notNegative(wait, "maxWait");
            return this;
        }

        /**
         * Whether the handle renews its lease in the background (every third of the lease) until it is
         * closed. Default {@code true}. Without it, the lock ends with its lease unless
         * {@link TreeLock#renew()} is called; and a grant whose answer came after the lease it asked for had
         * ended (a lease shorter than the round trip, as ShedLock's {@code lockAtMostFor} may be) is handed out as
         * granted, already not {@linkplain TreeLock#isHeld() held}, where a renewed lock's is given back and asked
         * for again.
         *
         * @param autoRenew false to renew only by hand
         * @return this builder
         */
        public Builder autoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
            return this;
        }

        /**
         * Binds the grant to the user the client authenticates as, so that only that user may release or
         * renew it (or a user Elasticsearch security allows the action
         * {@code cluster:admin/esrel/treelock/override_binding}, which the cluster privileges {@code manage}
         * and {@code all} include). Default {@code false}: any user with {@code write} on the index who knows
         * the owner and token (the listing shows them to anyone with {@code read}) may release or renew it.
         *
         * <p>Only the plugin can enforce this: {@link PluginTreeLocks} sends {@code "bind_to_user": true} (the
         * server answers 400 when security is off, as there is no user to bind to). {@link DocumentTreeLocks}
         * refuses a request with this option ({@link IllegalArgumentException}), because anyone who may write
         * its lock documents may change them; it never ignores it.
         *
         * @param bindToUser true to bind the grant to the authenticated user
         * @return this builder
         */
        public Builder bindToUser(boolean bindToUser) {
            this.bindToUser = bindToUser;
            return this;
        }

        /**
         * A listener for this lock only, called besides the provider's. Default {@link TreeLockListener#NO_OP}.
         *
         * @param listener the listener, not {@code null}
         * @return this builder
         */
        public Builder listener(TreeLockListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener cannot be null");
            return this;
        }

        /**
         * Creates the request.
         *
         * @return the new immutable request
         * @throws NullPointerException if no path was set
         */
        public LockRequest build() {
            return new LockRequest(this);
        }
    }

    static String checkOwner(String owner) {
        Objects.requireNonNull(owner, "owner cannot be null");
        if (owner.isBlank()) {
            throw new IllegalArgumentException("owner must not be blank");
        }
        int bytes = owner.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > MAX_OWNER_LENGTH) {
            throw new IllegalArgumentException(
                    "owner must be at most " + MAX_OWNER_LENGTH + " UTF-8 bytes, got " + bytes);
        }
        return owner;
    }

    static Duration checkTtl(Duration ttl) {
        Checks.positive(ttl, "ttl");
        if (ttl.toMillis() < 1) {
            throw new IllegalArgumentException("ttl must be at least 1 ms, got " + ttl);
        }
        return ttl;
    }
}
