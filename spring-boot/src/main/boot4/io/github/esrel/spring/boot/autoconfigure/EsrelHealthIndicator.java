package io.github.esrel.spring.boot.autoconfigure;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/** The {@code esrel} health contributor of Boot 4 (spring-boot-health): {@link EsrelHealthProbe}'s check as Boot's {@link Health}. */
class EsrelHealthIndicator extends AbstractHealthIndicator {

    private final EsrelHealthProbe probe;

    EsrelHealthIndicator(EsrelHealthProbe probe) {
        super("esrel health check failed");
        this.probe = probe;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        EsrelHealthProbe.Check check = probe.check();
        (check.up() ? builder.up() : builder.down()).withDetails(check.details());
    }
}
