package io.github.esrel.spring.boot.autoconfigure;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.ExceptionTranslator;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.ExternalVersions;
import io.github.esrel.occ.Occ;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.spring.SpringExceptionTranslator;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * esrel's entry points as beans, on the application's {@link ElasticsearchClient} (Boot's, or the application's own
 * bean): {@link Occ}, {@link ExternalVersions}, {@link RoutingClient}, {@link TreeLocks} (when
 * {@code esrel.locks.namespace} is set), and {@link JoinDefaults} and {@link PropagationDefaults} to build joins and
 * propagators from. Active when there is one client bean (or a primary one) and {@code esrel.enabled} is not
 * {@code false}. Every bean backs off when the application defines one of the same type.
 *
 * <p>Building {@code Occ}, {@code ExternalVersions} and {@code RoutingClient} sends the cluster one {@code GET /} per
 * client, and {@code TreeLocks} with the {@code auto} provider asks the cluster whether every node has the plugin: the
 * context needs the cluster when it starts, as with any client-backed bean.
 *
 * <p>With spring-tx on the class path, an {@link ExceptionTranslator} bean ({@link SpringExceptionTranslator}, unless
 * the application defines its own) is set on the {@code Occ} and {@code TreeLocks} beans, so that an OCC give-up and a
 * busy lock's {@code orThrow()} surface as Spring's {@code OptimisticLockingFailureException} and
 * {@code CannotAcquireLockException}.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.elasticsearch.autoconfigure.ElasticsearchClientAutoConfiguration",
            "org.springframework.boot.autoconfigure.elasticsearch.ElasticsearchClientAutoConfiguration"
        })
@ConditionalOnClass({ElasticsearchClient.class, Occ.class})
@ConditionalOnSingleCandidate(ElasticsearchClient.class)
@ConditionalOnProperty(prefix = "esrel", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(EsrelProperties.class)
public class EsrelAutoConfiguration {

    /** Created by Spring. */
    public EsrelAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    Occ esrelOcc(
            ElasticsearchClient client,
            EsrelProperties properties,
            ObjectProvider<ExceptionTranslator> translator,
            ObjectProvider<OccCustomizer> customizers) {
        EsrelProperties.OccProperties occ = properties.getOcc();
        Occ.Builder builder = Occ.builder()
                .client(client)
                .retryPolicy(RetryPolicy.of(r -> r.maxAttempts(occ.getMaxAttempts())
                        .deadline(occ.getDeadline())
                        .backoff(occ.getBackoff().toBackoff())))
                .combineWrites(occ.isCombineWrites())
                .routingCheck(occ.isRoutingCheck())
                .exceptionTranslator(translator.getIfAvailable(() -> ExceptionTranslator.NONE));
        if (occ.getWriteLog() != null && !occ.getWriteLog().isBlank()) {
            builder.writeLog(occ.getWriteLog());
        }
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    ExternalVersions esrelExternalVersions(
            ElasticsearchClient client, ObjectProvider<ExternalVersionsCustomizer> customizers) {
        ExternalVersions.Builder builder = ExternalVersions.builder().client(client);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    RoutingClient esrelRoutingClient(
            ElasticsearchClient client,
            EsrelProperties properties,
            ObjectProvider<RoutingClientCustomizer> customizers) {
        return RoutingClient.of(b -> {
            b.client(client).source(properties.getRouting().getSource());
            customizers.orderedStream().forEach(c -> c.customize(b));
            return b;
        });
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "esrel.locks", name = "namespace")
    TreeLocks esrelTreeLocks(
            ElasticsearchClient client,
            EsrelProperties properties,
            ObjectProvider<ExceptionTranslator> translator,
            ObjectProvider<TreeLocksCustomizer> customizers) {
        EsrelProperties.LocksProperties locks = properties.getLocks();
        TreeLocks.Builder builder = TreeLocks.builder()
                .client(client)
                // Set: the bean's condition.
                .index(Objects.requireNonNull(locks.getNamespace(), "esrel.locks.namespace"))
                .backend(locks.getProvider())
                .ttl(locks.getTtl())
                .waitBackoff(locks.getWaitBackoff().toBackoff())
                .renewalThreads(locks.getRenewalThreads())
                .lockIndex(locks.getLockIndex())
                .createLockIndex(locks.isCreateLockIndex())
                .exceptionTranslator(translator.getIfAvailable(() -> ExceptionTranslator.NONE));
        if (locks.getOwner() != null) {
            builder.owner(locks.getOwner());
        }
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    JoinDefaults esrelJoinDefaults(
            ElasticsearchClient client, EsrelProperties properties, ObjectProvider<JoinCustomizer> customizers) {
        return new JoinDefaults(
                client, properties.getJoin(), customizers.orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    PropagationDefaults esrelPropagationDefaults(
            ElasticsearchClient client, EsrelProperties properties, ObjectProvider<PropagatorCustomizer> customizers) {
        return new PropagationDefaults(
                client, properties.getPropagation(), customizers.orderedStream().toList());
    }

    /** Spring's exceptions for esrel's, when spring-tx (which holds them) is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.dao.OptimisticLockingFailureException")
    static class ExceptionTranslation {

        @Bean
        @ConditionalOnMissingBean
        ExceptionTranslator esrelExceptionTranslator() {
            return new SpringExceptionTranslator();
        }
    }
}
