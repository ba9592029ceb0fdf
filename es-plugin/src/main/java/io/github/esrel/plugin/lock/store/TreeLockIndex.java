package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.commit.VersionedStore;
import org.elasticsearch.action.DocWriteRequest;
import org.elasticsearch.action.index.IndexRequest;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.indices.SystemIndexDescriptor;
import org.elasticsearch.xcontent.XContentBuilder;

/**
 * The system index holding the lock tables: one document per locked index (its name is the id). Net-new and
 * internal, so ordinary document APIs cannot read or write it; the plugin reaches it from a stashed context
 * with its {@link #ORIGIN}.
 *
 * <p>Settings: one shard, {@code auto_expand_replicas: 0-1} (a replica as soon as there is a second node, so
 * an acknowledged grant survives the loss of the primary's node), and a short delayed allocation so a lost
 * replica is rebuilt within seconds (the index holds a handful of small documents).
 */
public final class TreeLockIndex {

    /** The index the lock tables live in. */
    public static final String NAME = ".esrel-treelocks-1";

    static final String PATTERN = ".esrel-treelocks-*";
    /** Increment when the mappings change. */
    static final int MAPPINGS_VERSION = 2;
    /**
     * The origin of every request the plugin sends to the lock index, also recorded in the descriptor
     * (Elasticsearch uses it there to update the mappings of an older index). Without security an origin is
     * only a marker. With security, Elasticsearch runs a request by its origin as one of its internal users
     * and refuses origins it does not know, so a plugin cannot bring its own: {@code stack} is the general
     * origin of Elasticsearch's own stack components and runs as the internal {@code _xpack} user, which may
     * create, read and write system indices.
     */
    public static final String ORIGIN = "stack";

    /** The timeout of each write, so that a write stuck waiting for a primary comes back to be retried. */
    static final TimeValue WRITE_TIMEOUT = TimeValue.timeValueSeconds(10);

    private TreeLockIndex() {}

    /**
     * The write of a namespace's document (a head, or a one-document table; its id is the namespace) conditional
     * on the version {@code read}: {@code if_seq_no}/{@code if_primary_term}, or a create when there was none.
     *
     * @param namespace the namespace, the document's id
     * @param source    the document
     * @param read      the version the document was read at
     * @return the index request, with the write timeout
     */
    public static IndexRequest replacing(String namespace, XContentBuilder source, VersionedStore.Versioned<?> read) {
        IndexRequest write = new IndexRequest(NAME).id(namespace).source(source).timeout(WRITE_TIMEOUT);
        if (read.exists()) {
            write.setIfSeqNo(read.seqNo()).setIfPrimaryTerm(read.primaryTerm());
        } else {
            write.opType(DocWriteRequest.OpType.CREATE);
        }
        return write;
    }

    /**
     * The descriptor that declares {@link #NAME} as a net-new, internal, managed system index, with its
     * mappings, settings and {@link #ORIGIN}; returned by the plugin's {@code getSystemIndexDescriptors}.
     *
     * @return a new descriptor
     */
    public static SystemIndexDescriptor descriptor() {
        return SystemIndexCompat.builder()
                .setIndexPattern(PATTERN)
                .setPrimaryIndex(NAME)
                .setDescription("esrel tree locks: the lock table and fencing token counter of each locked index")
                .setMappings(mappings())
                .setSettings(settings())
                .setOrigin(ORIGIN)
                .setType(SystemIndexDescriptor.Type.INTERNAL_MANAGED)
                .setNetNew()
                .build();
    }

    static Settings settings() {
        return Settings.builder()
                .put(IndexMetadata.SETTING_NUMBER_OF_SHARDS, 1)
                .put(IndexMetadata.SETTING_AUTO_EXPAND_REPLICAS, "0-1")
                .put(IndexMetadata.SETTING_PRIORITY, Integer.MAX_VALUE)
                .put("index.unassigned.node_left.delayed_timeout", "5s")
                .build();
    }

    static String mappings() {
        // Heads are read by id, in real time; grant documents are searched (by kind, namespace, sorted by token)
        // only when a node rebuilds a table. Version 1 held only one-document tables (namespace, last_token,
        // updated_at, grants), which version 2 still reads.
        return """
            {
              "_doc": {
                "_meta": {"%s": %d%s},
                "dynamic": "strict",
                "properties": {
                  "kind": {"type": "keyword"},
                  "namespace": {"type": "keyword"},
                  "last_token": {"type": "long"},
                  "updated_at": {"type": "date", "format": "epoch_millis"},
                  "grants": {"type": "object", "enabled": false},
                  "round": {"type": "long", "index": false},
                  "write_id": {"type": "keyword", "index": false, "doc_values": false},
                  "earlier": {"type": "object", "enabled": false},
                  "changes": {"type": "object", "enabled": false},
                  "token": {"type": "long"},
                  "released": {"type": "boolean"},
                  "purge_after": {"type": "date", "format": "epoch_millis"},
                  "grant": {"type": "object", "enabled": false}
                }
              }
            }""".formatted(
                        SystemIndexDescriptor.VERSION_META_KEY, MAPPINGS_VERSION, SystemIndexCompat.extraMappingMeta());
    }
}
