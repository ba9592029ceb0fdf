package io.github.esrel.spring.boot.autoconfigure;

import io.github.esrel.denorm.Propagator;

/**
 * Sets what no {@code esrel.*} property covers on every propagator built with {@link PropagationDefaults}, after the properties are applied. Declare one or more
 * as beans; they run in {@link org.springframework.core.annotation.Order @Order} (esrel's own, such as the meters'
 * listener, run first, so yours can replace what they set).
 */
@FunctionalInterface
public interface PropagatorCustomizer {

    /**
     * Customizes the builder of a propagator, before the application sets its relation.
     *
     * @param builder the builder, with the client and the properties already set
     */
    void customize(Propagator.Builder builder);
}
