package io.github.esrel.spring.boot.autoconfigure;

import io.github.esrel.join.Join;

/**
 * Sets what no {@code esrel.*} property covers on every join built with {@link JoinDefaults}, after the properties are applied. Declare one or more
 * as beans; they run in {@link org.springframework.core.annotation.Order @Order} (esrel's own, such as the meters'
 * listener, run first, so yours can replace what they set).
 */
@FunctionalInterface
public interface JoinCustomizer {

    /**
     * Customizes the builder of a join, before the application sets its relation.
     *
     * @param builder the builder, with the client and the properties already set
     */
    void customize(Join.Builder builder);
}
