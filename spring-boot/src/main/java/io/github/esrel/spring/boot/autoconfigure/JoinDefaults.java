package io.github.esrel.spring.boot.autoconfigure;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.join.Join;
import java.util.List;

/**
 * The starting point of the application's joins: the application's client and the {@code esrel.join.*} caps, then the
 * {@link JoinCustomizer} beans. The starter makes no {@code Join}: the application builds the ones it needs (a join
 * with other caps for one relation, say) from this bean and keeps them (a {@code Join} is immutable and thread-safe):
 *
 * <pre>{@code
 * @Bean
 * Join join(JoinDefaults defaults) {
 *     return Join.of(defaults::applyTo);                       // or defaults.builder().maxParents(500).build()
 * }
 * }</pre>
 *
 * Options the application sets after {@link #applyTo} win over the defaults.
 */
public final class JoinDefaults {

    private final ElasticsearchClient client;
    private final EsrelProperties.JoinProperties properties;
    private final List<JoinCustomizer> customizers;

    JoinDefaults(
            ElasticsearchClient client, EsrelProperties.JoinProperties properties, List<JoinCustomizer> customizers) {
        this.client = client;
        this.properties = properties;
        this.customizers = List.copyOf(customizers);
    }

    /**
     * Sets the client, the {@code esrel.join.*} caps and the customizers' options on a join's builder.
     *
     * @param builder a join's builder, not {@code null}
     * @return the same builder, for the relation's own options
     * @throws IllegalArgumentException if a property is out of the builder's range
     */
    public Join.Builder applyTo(Join.Builder builder) {
        builder.client(client)
                .maxParents(properties.getMaxParents())
                .pageSize(properties.getPageSize())
                .maxProbedChildren(properties.getMaxProbedChildren())
                .pitKeepAlive(properties.getPitKeepAlive());
        customizers.forEach(c -> c.customize(builder));
        return builder;
    }

    /**
     * A new join builder with the defaults set: {@code applyTo(Join.builder())}.
     *
     * @return the builder, for the relation's own options
     */
    public Join.Builder builder() {
        return applyTo(Join.builder());
    }

    @Override
    public String toString() {
        return "JoinDefaults{maxParents=" + properties.getMaxParents() + ", pageSize=" + properties.getPageSize()
                + ", maxProbedChildren=" + properties.getMaxProbedChildren() + ", pitKeepAlive="
                + properties.getPitKeepAlive() + ", customizers=" + customizers.size() + '}';
    }
}
