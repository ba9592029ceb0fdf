package io.github.esrel.spring.integration;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

/**
 * What {@link EsrelLock} implements on Spring Integration 6.5, which has no {@code DistributedLock}: a {@link Lock},
 * with the lease-taking methods that 7.0's {@code DistributedLock} declares.
 */
interface LineLock extends Lock {

    void lock(Duration ttl);

    boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException;
}
