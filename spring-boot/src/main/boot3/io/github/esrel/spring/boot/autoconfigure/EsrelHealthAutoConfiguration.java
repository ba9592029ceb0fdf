package io.github.esrel.spring.boot.autoconfigure;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.TreeLocks;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code esrel} health contributor, when Boot 3 (spring-boot-actuator) is on the class path and
 * {@code management.health.esrel.enabled} is not {@code false}: the esrel plugin on every node (its version, the nodes
 * without it), the lock index of the {@code TreeLocks} bean and its health, and which provider serves the locks.
 *
 * <p>DOWN when the cluster does not answer within {@code esrel.health.timeout} (default 10 s) or refuses the
 * requests, when the {@code TreeLocks} bean uses the plugin and a node lacks it, or when the lock index is red. A
 * cluster without the plugin is UP (locks then come from lock documents, routing from cluster state), and so is a lock
 * index not created yet (the plugin and the fallback create it on the first lock).
 */
@AutoConfiguration(
        after = EsrelAutoConfiguration.class,
        afterName = "org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration")
@ConditionalOnClass({ElasticsearchClient.class, TreeLocks.class, AbstractHealthIndicator.class})
@ConditionalOnSingleCandidate(ElasticsearchClient.class)
@ConditionalOnProperty(prefix = "esrel", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(EsrelProperties.class)
public class EsrelHealthAutoConfiguration {

    /** Created by Spring. */
    public EsrelHealthAutoConfiguration() {}

    /**
     * The contributor, in a configuration of its own: its condition's class belongs to the health API, so Spring must
     * read it only once the class condition above has found that API (as it does for a context built without Boot's
     * auto-configuration filter, an {@code ApplicationContextRunner}'s).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("esrel")
    static class Contributor {

        @Bean
        @ConditionalOnMissingBean(name = "esrelHealthIndicator")
        EsrelHealthIndicator esrelHealthIndicator(
                ElasticsearchClient client, ObjectProvider<TreeLocks> locks, EsrelProperties properties) {
            return new EsrelHealthIndicator(EsrelHealthProbe.of(client, locks, properties));
        }
    }
}
