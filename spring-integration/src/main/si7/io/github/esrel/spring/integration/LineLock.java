package io.github.esrel.spring.integration;

import org.springframework.integration.support.locks.DistributedLock;

/** What {@link EsrelLock} implements on Spring Integration 7: its {@code DistributedLock}. */
interface LineLock extends DistributedLock {}
