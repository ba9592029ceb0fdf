package io.github.esrel.plugin.lock;

import org.elasticsearch.common.settings.AbstractScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.core.TimeValue;
import org.jspecify.annotations.Nullable;

/** The current values of the dynamic {@link TreeLockSettings}, and the checks of requests against them. */
final class TreeLockLimits {

    private volatile TimeValue maxTtl;
    private volatile TimeValue maxWait;
    private volatile int maxLocks;
    private volatile TimeValue retryTimeout;

    /**
     * @param settings        the node settings, for the initial values
     * @param clusterSettings the cluster settings, whose updates the limits follow
     */
    TreeLockLimits(Settings settings, AbstractScopedSettings clusterSettings) {
        this.maxTtl = TreeLockSettings.MAX_TTL.get(settings);
        this.maxWait = TreeLockSettings.MAX_WAIT.get(settings);
        this.maxLocks = TreeLockSettings.MAX_LOCKS_PER_INDEX.get(settings);
        this.retryTimeout = TreeLockSettings.RETRY_TIMEOUT.get(settings);
        clusterSettings.addSettingsUpdateConsumer(TreeLockSettings.MAX_TTL, v -> maxTtl = v);
        clusterSettings.addSettingsUpdateConsumer(TreeLockSettings.MAX_WAIT, v -> maxWait = v);
        clusterSettings.addSettingsUpdateConsumer(TreeLockSettings.MAX_LOCKS_PER_INDEX, v -> maxLocks = v);
        clusterSettings.addSettingsUpdateConsumer(TreeLockSettings.RETRY_TIMEOUT, v -> retryTimeout = v);
    }

    /** How long a call retries an unavailable lock index, in nanoseconds, after its wait. */
    long retryNanos() {
        return retryTimeout.nanos();
    }

    /** The most live grants one namespace may hold. */
    int maxLocks() {
        return maxLocks;
    }

    /**
     * The lease of a request, in milliseconds: the default (60 s, or the maximum if shorter) when it gave none.
     *
     * @throws IllegalArgumentException for a {@code ttl} over the maximum, which is refused rather than shortened
     */
    long ttlMillis(@Nullable TimeValue ttl) {
        TimeValue max = maxTtl;
        if (ttl == null) {
            return Math.min(TreeLockSettings.DEFAULT_TTL.millis(), max.millis());
        }
        if (ttl.millis() > max.millis()) {
            throw new IllegalArgumentException(
                    "ttl [" + ttl.getStringRep() + "] is longer than the maximum [" + max.getStringRep()
                            + "] (setting [" + TreeLockSettings.MAX_TTL.getKey() + "]); renew a shorter lease instead");
        }
        return ttl.millis();
    }

    /**
     * How long an acquire may wait, in milliseconds: 0 when it gave no {@code wait}.
     *
     * @throws IllegalArgumentException for a {@code wait} over the maximum
     */
    long waitMillis(@Nullable TimeValue wait) {
        TimeValue max = maxWait;
        if (wait == null) {
            return 0;
        }
        if (wait.millis() > max.millis()) {
            throw new IllegalArgumentException("wait [" + wait.getStringRep() + "] is longer than the maximum ["
                    + max.getStringRep() + "] (setting [" + TreeLockSettings.MAX_WAIT.getKey() + "]); retry instead");
        }
        return wait.millis();
    }
}
