package io.github.esrel.boot;

import org.springframework.boot.autoconfigure.elasticsearch.ElasticsearchConnectionDetails;

/** {@code @ServiceConnection} on esrel's container in a Spring Boot 3.5 application (Testcontainers 1.21). */
class Boot3ServiceConnectionIT extends AbstractServiceConnectionIT {

    @Override
    protected Class<?> connectionDetailsType() {
        return ElasticsearchConnectionDetails.class;
    }
}
