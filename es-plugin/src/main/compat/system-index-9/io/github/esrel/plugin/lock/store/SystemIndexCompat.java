package io.github.esrel.plugin.lock.store;

import org.elasticsearch.indices.SystemIndexDescriptor;

/** Elasticsearch 9.x: a managed system index needs nothing beyond its mappings version. */
final class SystemIndexCompat {

    private SystemIndexCompat() {}

    /** A descriptor builder with what this server line requires of every managed system index. */
    static SystemIndexDescriptor.Builder builder() {
        return SystemIndexDescriptor.builder();
    }

    /** Entries this server line expects in the {@code _meta} of the mappings, as JSON members with a leading comma. */
    static String extraMappingMeta() {
        return "";
    }
}
