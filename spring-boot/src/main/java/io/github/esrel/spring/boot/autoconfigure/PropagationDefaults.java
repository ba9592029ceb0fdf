package io.github.esrel.spring.boot.autoconfigure;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.denorm.Propagator;
import java.util.List;

/**
 * The starting point of the application's propagators: the application's client, the {@code esrel.propagation.*}
 * settings (bulks in flight, throttle, batch size), then the {@link PropagatorCustomizer} beans (with Micrometer, the
 * first sets esrel's meters as the listener). A propagator is per relation, so the starter makes none; the application
 * builds each from this bean:
 *
 * <pre>{@code
 * @Bean
 * Propagator authorNames(PropagationDefaults defaults) {
 *     return Propagator.of(b -> defaults.applyTo(b).relation(Relation.of(r -> r
 *         .parentIndex("authors").childIndex("books").parentIdField("author_id")
 *         .copy("name", "author_name"))));
 * }
 * }</pre>
 *
 * Options the application sets after {@link #applyTo} win over the defaults (a listener of its own replaces the
 * meters' one: combine them if both are wanted).
 */
public final class PropagationDefaults {

    private final ElasticsearchClient client;
    private final EsrelProperties.PropagationProperties properties;
    private final List<PropagatorCustomizer> customizers;

    PropagationDefaults(
            ElasticsearchClient client,
            EsrelProperties.PropagationProperties properties,
            List<PropagatorCustomizer> customizers) {
        this.client = client;
        this.properties = properties;
        this.customizers = List.copyOf(customizers);
    }

    /**
     * Sets the client, the {@code esrel.propagation.*} settings and the customizers' options on a propagator's builder.
     *
     * @param builder a propagator's builder, not {@code null}
     * @return the same builder, for the relation's own options
     * @throws IllegalArgumentException if a property is out of the builder's range
     */
    public Propagator.Builder applyTo(Propagator.Builder builder) {
        builder.client(client).batchSize(properties.getBatchSize()).maxDocsPerSecond(properties.getMaxDocsPerSecond());
        if (properties.getBulksInFlight() != null) {
            builder.bulksInFlight(properties.getBulksInFlight());
        }
        customizers.forEach(c -> c.customize(builder));
        return builder;
    }

    /**
     * A new propagator builder with the defaults set: {@code applyTo(Propagator.builder())}.
     *
     * @return the builder, for the relation's own options
     */
    public Propagator.Builder builder() {
        return applyTo(Propagator.builder());
    }

    @Override
    public String toString() {
        return "PropagationDefaults{bulksInFlight="
                + (properties.getBulksInFlight() == null ? "auto" : properties.getBulksInFlight())
                + ", maxDocsPerSecond=" + properties.getMaxDocsPerSecond() + ", batchSize=" + properties.getBatchSize()
                + ", customizers=" + customizers.size() + '}';
    }
}
