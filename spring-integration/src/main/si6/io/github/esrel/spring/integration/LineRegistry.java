package io.github.esrel.spring.integration;

import java.time.Duration;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * What {@link EsrelLockRegistry} implements on Spring Integration 6.5 (registries of plain locks, renewLock without a
 * lease), with what 7.0's interfaces add.
 */
interface LineRegistry extends ExpirableLockRegistry, RenewableLockRegistry {

    @Override
    EsrelLock obtain(Object lockKey);

    void renewLock(Object lockKey, Duration ttl);
}
