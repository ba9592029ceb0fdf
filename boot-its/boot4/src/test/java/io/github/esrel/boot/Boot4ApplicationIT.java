package io.github.esrel.boot;

import co.elastic.clients.json.jackson.Jackson3JsonpMapper;
import co.elastic.clients.transport.rest5_client.Rest5ClientTransport;

/**
 * esrel-client in a Spring Boot 4.0 application: Boot 4.0.7 manages elasticsearch-java 9.2.x, and with Jackson 3 on
 * the class path ({@code spring-boot-starter-jackson}) its auto-configuration builds the client on a
 * {@link Rest5ClientTransport} with a {@link Jackson3JsonpMapper}.
 */
class Boot4ApplicationIT extends AbstractBootApplicationIT {

    @Override
    protected Expected expected() {
        return new Expected(
                "4.0.",
                "9.2.",
                Rest5ClientTransport.class,
                Jackson3JsonpMapper.class,
                "Jackson " + tools.jackson.databind.cfg.PackageVersion.VERSION);
    }
}
