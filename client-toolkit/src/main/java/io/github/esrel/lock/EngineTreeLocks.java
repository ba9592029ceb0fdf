package io.github.esrel.lock;

import io.github.esrel.path.TreePath;
import java.util.List;
import java.util.Objects;

/**
 * What both providers do alike: every lock goes through the {@link Engine} (owner, lease, waiting, open
 * leases) to the backend's {@link LockStore}, the plugin's API or lock documents.
 */
abstract class EngineTreeLocks implements TreeLocks {

    final Engine engine;

    EngineTreeLocks(Engine engine) {
        this.engine = engine;
    }

    /** The backend's requests. */
    abstract LockStore store();

    /** The backend's requests for this acquisition: by default those of every request. */
    LockStore store(LockRequest request) {
        return store();
    }

    @Override
    public String index() {
        return engine.index;
    }

    @Override
    public AcquireResult<TreeLock> acquire(LockRequest request) {
        Objects.requireNonNull(request, "request cannot be null");
        return engine.acquire(store(request), request);
    }

    @Override
    public List<LockInfo> list(TreePath prefix) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        engine.checkOpen();
        return store().list(prefix);
    }

    @Override
    public void close() {
        engine.close();
    }
}
