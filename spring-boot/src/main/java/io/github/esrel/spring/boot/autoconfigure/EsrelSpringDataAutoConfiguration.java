package io.github.esrel.spring.boot.autoconfigure;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.spring.data.SpringDataDocumentConverter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;
import org.springframework.data.elasticsearch.core.ElasticsearchOperations;

/**
 * esrel on Spring Data Elasticsearch's entities, when the application has Spring Data Elasticsearch (its
 * {@link ElasticsearchOperations} bean, Boot's {@code elasticsearchTemplate} or the application's own): a
 * {@link SpringDataDocumentConverter} on that template and the {@link ElasticsearchClient} bean, set on the
 * {@code Occ} bean (so on its {@code BulkUpdate}s too) and on joins built from {@link JoinDefaults}. A
 * {@code @Document} entity is then stored exactly as {@code ElasticsearchOperations.save} stores it; every other type
 * as before, with the client's mapper. Materialized views take it from the bean:
 * {@code MaterializedView.Builder.documentConverter(converter)}. Repositories that extend
 * {@code io.github.esrel.spring.data.EsrelRepository} use the {@code Occ} bean and a {@code Join} bean.
 */
@AutoConfiguration(
        before = EsrelAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.data.elasticsearch.autoconfigure.DataElasticsearchAutoConfiguration",
            "org.springframework.boot.autoconfigure.data.elasticsearch.ElasticsearchDataAutoConfiguration"
        })
@ConditionalOnClass({ElasticsearchClient.class, ElasticsearchOperations.class, SpringDataDocumentConverter.class})
@ConditionalOnSingleCandidate(ElasticsearchOperations.class)
@ConditionalOnProperty(prefix = "esrel", name = "enabled", havingValue = "true", matchIfMissing = true)
public class EsrelSpringDataAutoConfiguration {

    /** Created by Spring. */
    public EsrelSpringDataAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(ElasticsearchClient.class)
    SpringDataDocumentConverter esrelDocumentConverter(ElasticsearchOperations operations, ElasticsearchClient client) {
        return SpringDataDocumentConverter.of(operations, client);
    }

    // Order 0, as the meters' customizers: an application's customizer without an order runs after and may replace it.

    @Bean
    @Order(0)
    @ConditionalOnSingleCandidate(SpringDataDocumentConverter.class)
    OccCustomizer esrelSpringDataOccCustomizer(SpringDataDocumentConverter converter) {
        return b -> b.documentConverter(converter);
    }

    @Bean
    @Order(0)
    @ConditionalOnSingleCandidate(SpringDataDocumentConverter.class)
    JoinCustomizer esrelSpringDataJoinCustomizer(SpringDataDocumentConverter converter) {
        return b -> b.documentConverter(converter);
    }
}
