/**
 * A Spring Integration {@code LockRegistry} on tree locks: {@link io.github.esrel.spring.integration.EsrelLockRegistry}
 * gives {@code java.util.concurrent.locks.Lock}s as Spring's JDBC and Redis registries do, leased and renewed while
 * held, with a fencing token per hold ({@link io.github.esrel.spring.integration.EsrelLock}), for {@code executeLocked},
 * aggregators and leader election.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/tree-locks.md#spring-integration">Tree locks: Spring Integration</a>.
 */
@NullMarked
package io.github.esrel.spring.integration;

import org.jspecify.annotations.NullMarked;
