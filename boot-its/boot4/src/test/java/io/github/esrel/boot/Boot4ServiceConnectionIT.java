package io.github.esrel.boot;

import org.springframework.boot.elasticsearch.autoconfigure.ElasticsearchConnectionDetails;

/** {@code @ServiceConnection} on esrel's container in a Spring Boot 4.0 application (Testcontainers 2.0). */
class Boot4ServiceConnectionIT extends AbstractServiceConnectionIT {

    @Override
    protected Class<?> connectionDetailsType() {
        return ElasticsearchConnectionDetails.class;
    }
}
