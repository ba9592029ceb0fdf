package io.github.esrel.spring.boot.autoconfigure;

import io.github.esrel.occ.ExternalVersions;

/**
 * Sets what no {@code esrel.*} property covers on the {@code ExternalVersions} bean, after the properties are applied. Declare one or more
 * as beans; they run in {@link org.springframework.core.annotation.Order @Order} (esrel's own, such as the meters'
 * listener, run first, so yours can replace what they set).
 */
@FunctionalInterface
public interface ExternalVersionsCustomizer {

    /**
     * Customizes the builder before the {@code ExternalVersions} bean is built.
     *
     * @param builder the builder, with the client and the properties already set
     */
    void customize(ExternalVersions.Builder builder);
}
