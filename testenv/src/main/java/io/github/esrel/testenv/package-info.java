/**
 * Real Elasticsearch clusters for tests, with the esrel plugin installed: the JUnit 5 extension ({@link
 * io.github.esrel.testenv.EsrelTest}, {@link io.github.esrel.testenv.Cluster}) and {@link
 * io.github.esrel.testenv.EsCluster} start nodes of the distribution on Maven Central, in containers or on an external
 * cluster, with node control, security and network partitions; {@link
 * io.github.esrel.testenv.EsrelElasticsearchContainer} is Testcontainers' {@code ElasticsearchContainer} with the plugin.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/testing.md">Testing your application</a>.
 */
@NullMarked
package io.github.esrel.testenv;

import org.jspecify.annotations.NullMarked;
