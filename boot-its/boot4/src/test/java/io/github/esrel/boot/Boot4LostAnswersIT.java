package io.github.esrel.boot;

import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** Lost answers on Boot 4.0's client of two {@code spring.elasticsearch.uris}, Spring Data Elasticsearch 6.0. */
@EnabledIfSystemProperty(
        named = "esrel.es.version",
        matches = "9\\..*",
        disabledReason = "Boot 4's elasticsearch-java 9.2 talks to Elasticsearch 9 only")
class Boot4LostAnswersIT extends AbstractLostAnswersIT {}
