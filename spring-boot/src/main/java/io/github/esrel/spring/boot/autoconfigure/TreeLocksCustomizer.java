package io.github.esrel.spring.boot.autoconfigure;

import io.github.esrel.lock.TreeLocks;

/**
 * Sets what no {@code esrel.*} property covers on the {@code TreeLocks} bean, after the properties are applied. Declare one or more
 * as beans; they run in {@link org.springframework.core.annotation.Order @Order} (esrel's own, such as the meters'
 * listener, run first, so yours can replace what they set).
 */
@FunctionalInterface
public interface TreeLocksCustomizer {

    /**
     * Customizes the builder before the {@code TreeLocks} bean is built.
     *
     * @param builder the builder, with the client and the properties already set
     */
    void customize(TreeLocks.Builder builder);
}
