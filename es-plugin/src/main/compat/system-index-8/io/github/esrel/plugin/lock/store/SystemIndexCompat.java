package io.github.esrel.plugin.lock.store;

import org.elasticsearch.Build;
import org.elasticsearch.indices.SystemIndexDescriptor;

/**
 * Elasticsearch 8.x: a managed system index must name the {@code _meta} key that holds the node version which
 * wrote its mappings, and its mappings must carry that key.
 */
final class SystemIndexCompat {

    private static final String NODE_VERSION_META_KEY = "version";

    private SystemIndexCompat() {}

    /** A descriptor builder with what this server line requires of every managed system index. */
    static SystemIndexDescriptor.Builder builder() {
        return SystemIndexDescriptor.builder().setVersionMetaKey(NODE_VERSION_META_KEY);
    }

    /** Entries this server line expects in the {@code _meta} of the mappings, as JSON members with a leading comma. */
    static String extraMappingMeta() {
        return ", \"" + NODE_VERSION_META_KEY + "\": \"" + Build.current().version() + "\"";
    }
}
