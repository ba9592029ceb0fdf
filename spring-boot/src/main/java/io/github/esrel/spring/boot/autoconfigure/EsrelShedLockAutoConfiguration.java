package io.github.esrel.spring.boot.autoconfigure;

import io.github.esrel.lock.TreeLocks;
import io.github.esrel.shedlock.EsrelLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * ShedLock's {@link LockProvider} on esrel's tree locks, when ShedLock and esrel-shedlock are on the class path and
 * the application has a {@link TreeLocks} bean (esrel's, with {@code esrel.locks.namespace} set, or its own): an
 * {@link EsrelLockProvider} whose lock names become paths under {@code esrel.shedlock.prefix} in that namespace.
 * {@code @EnableSchedulerLock} then takes its locks there, leased by the Elasticsearch node where the plugin runs.
 * Backs off when the application defines a {@code LockProvider} of its own, or with
 * {@code esrel.shedlock.enabled=false}.
 */
@AutoConfiguration(after = EsrelAutoConfiguration.class)
@ConditionalOnClass({LockProvider.class, EsrelLockProvider.class, TreeLocks.class})
@ConditionalOnBean(TreeLocks.class)
@ConditionalOnProperty(prefix = "esrel", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "esrel.shedlock", name = "enabled", havingValue = "true", matchIfMissing = true)
public class EsrelShedLockAutoConfiguration {

    /** Created by Spring. */
    public EsrelShedLockAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    EsrelLockProvider esrelShedLockProvider(TreeLocks treeLocks, EsrelProperties properties) {
        return EsrelLockProvider.builder()
                .treeLocks(treeLocks)
                .prefix(properties.getShedlock().getPrefix())
                .build();
    }
}
