package io.github.esrel.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.spring.integration.EsrelLockRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/** {@code esrel.integration.*} binds, and its defaults are the registry's own (no cluster needed). */
class EsrelIntegrationPropertiesTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(EsrelIntegrationProperties.class)
    static class PropertiesOnly {}

    @Test
    void shouldBindEveryProperty() {
        new ApplicationContextRunner()
                .withUserConfiguration(PropertiesOnly.class)
                .withPropertyValues(
                        "esrel.integration.enabled=false",
                        "esrel.integration.prefix=/flows",
                        "esrel.integration.ttl=7s",
                        "esrel.integration.auto-renew=false",
                        "esrel.integration.cache-capacity=3")
                .run(context -> {
                    EsrelIntegrationProperties p = context.getBean(EsrelIntegrationProperties.class);
                    assertThat(p.isEnabled()).isFalse();
                    assertThat(p.getPrefix()).isEqualTo("/flows");
                    assertThat(p.getTtl()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(p.isAutoRenew()).isFalse();
                    assertThat(p.getCacheCapacity()).isEqualTo(3);
                });
    }

    @Test
    void shouldDefaultToTheRegistrysDefaults() {
        EsrelIntegrationProperties p = new EsrelIntegrationProperties();
        assertThat(p.isEnabled()).isTrue();
        assertThat(p.getPrefix()).isEqualTo(EsrelLockRegistry.DEFAULT_PREFIX.value());
        assertThat(p.getTtl()).isEqualTo(EsrelLockRegistry.DEFAULT_TTL);
        assertThat(p.isAutoRenew()).isTrue();
        assertThat(p.getCacheCapacity()).isEqualTo(EsrelLockRegistry.DEFAULT_CACHE_CAPACITY);
        assertThat(new EsrelProperties().getShedlock().getPrefix()).isEqualTo("/shedlock");
    }
}
