package io.github.esrel.spring.boot.autoconfigure;

import io.github.esrel.lock.TreeLocks;
import io.github.esrel.spring.integration.EsrelLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration's {@link LockRegistry} on esrel's tree locks, when Spring Integration and esrel's registry
 * ({@code esrel-spring-integration} on Boot 4, {@code esrel-spring-integration6} on Boot 3.5) are on the class path and
 * the application has a {@link TreeLocks} bean (esrel's, with {@code esrel.locks.namespace} set, or its own): an
 * {@link EsrelLockRegistry} whose keys become paths under {@code esrel.integration.prefix} in that namespace, leased for
 * {@code esrel.integration.ttl}. {@code executeLocked}, aggregators and {@code LockRegistryLeaderInitiator} then lock
 * there. Backs off when the application defines a {@code LockRegistry} of its own, or with
 * {@code esrel.integration.enabled=false}; as {@link EsrelShedLockAutoConfiguration} does for ShedLock.
 */
@AutoConfiguration(after = EsrelAutoConfiguration.class)
@ConditionalOnClass({LockRegistry.class, EsrelLockRegistry.class, TreeLocks.class})
@ConditionalOnBean(TreeLocks.class)
@ConditionalOnProperty(prefix = "esrel", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "esrel.integration", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(EsrelIntegrationProperties.class)
public class EsrelIntegrationAutoConfiguration {

    /** Created by Spring. */
    public EsrelIntegrationAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    EsrelLockRegistry esrelLockRegistry(TreeLocks treeLocks, EsrelIntegrationProperties properties) {
        return EsrelLockRegistry.builder()
                .treeLocks(treeLocks)
                .prefix(properties.getPrefix())
                .ttl(properties.getTtl())
                .autoRenew(properties.isAutoRenew())
                .cacheCapacity(properties.getCacheCapacity())
                .build();
    }
}
