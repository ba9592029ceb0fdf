package io.github.esrel.testenv;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a JUnit 5 test class whose {@link Cluster @Cluster} fields are real Elasticsearch clusters
 * managed by {@link EsClusterExtension}.
 *
 * <pre>{@code
 * @EsrelTest
 * class LockIT {
 *   @Cluster
 *   static final EsCluster cluster = EsCluster.builder().nodes(3).build();
 *
 *   @Test
 *   void shouldIndex(ElasticsearchClient client) throws IOException {
 *     client.index(i -> i.index("fs").id("1").document(Map.of("a", 1)));
 *   }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(EsClusterExtension.class)
public @interface EsrelTest {}
