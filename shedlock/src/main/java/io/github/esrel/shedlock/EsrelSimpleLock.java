package io.github.esrel.shedlock;

import io.github.esrel.lock.TreeLock;
import io.github.esrel.path.TreePath;
import java.time.Instant;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A lock of an {@link EsrelLockProvider}: ShedLock's {@link SimpleLock} with the tree lock's fencing
 * {@link #token()}, path and namespace. {@link #unlock()} and {@link #extend} may each be called once, and not
 * both ({@link IllegalStateException} otherwise); {@link #extend} gives a new lock for the same grant, with the
 * same token.
 *
 * <p>The token is strictly greater than every token issued before for this lock name in this namespace: pass it
 * along with the writes the scheduled task makes (an external version on an Elasticsearch document, say) and a
 * task whose lock expired under it cannot overwrite what the next holder wrote.
 */
public final class EsrelSimpleLock extends AbstractSimpleLock {

    private final EsrelLockProvider provider;
    private final TreeLock handle;
    private final long startNanos;

    EsrelSimpleLock(EsrelLockProvider provider, LockConfiguration configuration, TreeLock handle, long startNanos) {
        super(configuration);
        this.provider = provider;
        this.handle = handle;
        this.startNanos = startNanos;
    }

    TreeLock handle() {
        return handle;
    }

    /**
     * The lock name given to ShedLock.
     *
     * @return the name
     */
    public String name() {
        return lockConfiguration.getName();
    }

    /**
     * The fencing token of the grant: strictly greater than every earlier token for this name's path.
     *
     * @return the token
     */
    public long token() {
        return handle.token();
    }

    /**
     * The locked path: the provider's prefix and the name's segment ({@link EsrelLockProvider#path(String)}).
     *
     * @return the path
     */
    public TreePath path() {
        return handle.path();
    }

    /**
     * The namespace: the index of the provider's {@link io.github.esrel.lock.TreeLocks}.
     *
     * @return the index name
     */
    public String index() {
        return handle.index();
    }

    /**
     * Whether the lease is still running, by this client's monotonic clock (local, asks nobody): false once it ran
     * out, was lost, or the lock was released. A task can check it between steps.
     *
     * @return whether the lock is held as far as this client knows
     */
    public boolean isHeld() {
        return handle.isHeld();
    }

    /**
     * When the current lease ends as stated at the last grant or renewal: by the server's clock with the plugin,
     * by this client's with lock documents.
     *
     * @return the end of the lease
     */
    public Instant expiresAt() {
        return handle.expiresAt();
    }

    @Override
    protected void doUnlock() {
        provider.unlock(this, lockConfiguration.getLockAtLeastFor(), startNanos);
    }

    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
        return provider.extend(this, newConfiguration);
    }

    @Override
    public String toString() {
        return "EsrelSimpleLock{" + name() + ", " + handle + '}';
    }
}
