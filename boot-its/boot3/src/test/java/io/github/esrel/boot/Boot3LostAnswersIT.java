package io.github.esrel.boot;

/** Lost answers on Boot 3.5's client (RestClient) of two {@code spring.elasticsearch.uris}, Spring Data 5.5. */
class Boot3LostAnswersIT extends AbstractLostAnswersIT {}
