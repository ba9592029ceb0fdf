package io.github.esrel.boot;

import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** Issue 29 on Boot 4.0.7: Spring Data Elasticsearch 6.0 and esrel-client, on Boot's Jackson 3 client. */
@EnabledIfSystemProperty(
        named = "esrel.es.version",
        matches = "9\\..*",
        disabledReason = "Boot 4's elasticsearch-java 9.2 talks to Elasticsearch 9 only")
class Boot4SpringDataIT extends AbstractSpringDataIT {}
