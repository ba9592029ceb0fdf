package io.github.esrel.spring.boot.autoconfigure;

import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.elasticsearch.autoconfigure.ElasticsearchClientAutoConfiguration;
import org.springframework.boot.elasticsearch.autoconfigure.ElasticsearchRestClientAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.context.ApplicationContext;

/** What the shared tests need of Boot 4: the auto-configurations whose classes moved between the lines. */
final class BootLine {

    /** Boot's client: the low-level client and the ElasticsearchClient on it, from spring.elasticsearch.*. */
    static final AutoConfigurations CLIENT = AutoConfigurations.of(
            ElasticsearchRestClientAutoConfiguration.class, ElasticsearchClientAutoConfiguration.class);

    /** Boot's MeterRegistry (a simple registry inside a composite one). */
    static final AutoConfigurations METRICS = AutoConfigurations.of(
            MetricsAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class);

    /** The package that holds this line's health API: filtered out, the application has no actuator. */
    static final String HEALTH_PACKAGE = "org.springframework.boot.health";

    /** A health report, independent of the line's Health type. */
    record Report(String status, Map<String, Object> details) {}

    private BootLine() {}

    /** The esrel contributor's report. */
    static Report esrelHealth(ApplicationContext context) {
        Health health =
                context.getBean("esrelHealthIndicator", HealthIndicator.class).health();
        return new Report(health.getStatus().getCode(), health.getDetails());
    }
}
