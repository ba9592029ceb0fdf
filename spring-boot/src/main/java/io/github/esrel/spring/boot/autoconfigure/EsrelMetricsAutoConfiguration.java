package io.github.esrel.spring.boot.autoconfigure;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.micrometer.EsrelMicrometer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;

/**
 * esrel's meters, when Micrometer and esrel-micrometer are on the class path and the application has a
 * {@link MeterRegistry} bean (Boot's, with the actuator): an {@link EsrelMicrometer} bean on that registry (and on the
 * {@link ObservationRegistry} if there is one), whose listeners customizers of order 0 set on the {@code Occ} and
 * {@code TreeLocks} beans and on every propagator built with {@link PropagationDefaults}. The application passes
 * {@link EsrelMicrometer#viewListener()} to its materialized views itself, and adds a listener of its own to a bean
 * with a customizer of a later order that combines it with the meters' one.
 *
 * <p>Runs after Boot's metrics and observation auto-configurations of either Boot line (named, not referenced: the
 * classes moved between Boot 3 and 4) and before {@link EsrelAutoConfiguration}, whose beans apply the customizers.
 */
@AutoConfiguration(
        before = EsrelAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.elasticsearch.autoconfigure.ElasticsearchClientAutoConfiguration",
            "org.springframework.boot.autoconfigure.elasticsearch.ElasticsearchClientAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"
        })
@ConditionalOnClass({ElasticsearchClient.class, MeterRegistry.class, EsrelMicrometer.class})
@ConditionalOnBean({ElasticsearchClient.class, MeterRegistry.class})
@ConditionalOnProperty(prefix = "esrel", name = "enabled", havingValue = "true", matchIfMissing = true)
public class EsrelMetricsAutoConfiguration {

    /** Created by Spring. */
    public EsrelMetricsAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    EsrelMicrometer esrelMicrometer(MeterRegistry registry, ObjectProvider<ObservationRegistry> observations) {
        EsrelMicrometer.Builder builder = EsrelMicrometer.builder().registry(registry);
        observations.ifAvailable(builder::observations);
        return builder.build();
    }

    @Bean
    @Order(0)
    OccCustomizer esrelMicrometerOccCustomizer(EsrelMicrometer micrometer) {
        return b -> b.listener(micrometer.occListener());
    }

    @Bean
    @Order(0)
    TreeLocksCustomizer esrelMicrometerTreeLocksCustomizer(EsrelMicrometer micrometer) {
        return b -> b.listener(micrometer.lockListener());
    }

    @Bean
    @Order(0)
    PropagatorCustomizer esrelMicrometerPropagatorCustomizer(EsrelMicrometer micrometer) {
        return b -> b.listener(micrometer.propagationListener());
    }
}
