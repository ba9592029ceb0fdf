package io.github.esrel.boot;

/** Issue 29 on Boot 3.5.7: Spring Data Elasticsearch 5.5 and esrel-client-es8. */
class Boot3SpringDataIT extends AbstractSpringDataIT {}
