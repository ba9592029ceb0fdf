package io.github.esrel.spring.integration;

import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/** What {@link EsrelLockRegistry} implements on Spring Integration 7 (generic registries, renewLock with a lease). */
interface LineRegistry extends ExpirableLockRegistry<EsrelLock>, RenewableLockRegistry<EsrelLock> {}
