package io.github.esrel.boot;

import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthComponent;
import org.springframework.boot.actuate.health.HealthEndpoint;

/**
 * esrel-client-es8 in a Spring Boot 3.5 application: Boot 3.5.7 manages elasticsearch-java 8.18.x, and its
 * auto-configuration builds the client on a {@link RestClientTransport} (whose 409s esrel decodes itself) with a
 * Jackson 2 {@link JacksonJsonpMapper}.
 */
class Boot3ApplicationIT extends AbstractBootApplicationIT implements LockRegistryChecks {

    @Override
    protected Expected expected() {
        return new Expected(
                "3.5.",
                "8.18.",
                RestClientTransport.class,
                JacksonJsonpMapper.class,
                "Jackson " + com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION);
    }

    @Autowired
    HealthEndpoint health;

    @Override
    protected HealthView esrelHealth() {
        HealthComponent esrel = health.healthForPath("esrel");
        return new HealthView(esrel.getStatus().getCode(), ((Health) esrel).getDetails());
    }
}
