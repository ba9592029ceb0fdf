package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.json.JsonData;
import java.io.IOException;
import java.util.Map;

/**
 * Creating esrel's own indices (checkpoints, view state, locks, file trees) when they are missing.
 * Internal: not part of esrel's API, may change without notice.
 */
public final class Indices {

    private Indices() {}

    /**
     * Creates {@code index} from a JSON body ({@code settings} and {@code mappings}) unless it exists.
     * Losing a creation race to another process counts as success.
     */
    public static void createIfAbsent(ElasticsearchClient client, String index, String json) throws IOException {
        try {
            if (!exists(client, index)) {
                create(client, index, json);
            }
        } catch (ElasticsearchException e) {
            if (!alreadyExists(e)) {
                throw e;
            }
        }
    }

    /**
     * Creates {@code index} from a JSON body ({@code settings} and {@code mappings}), sent as it is: the typed
     * request would first parse the JSON into the client's own mapping classes, and an older client's do not
     * read everything a newer server accepts (9.0's {@code TypeMapping} refuses {@code "subobjects": false}).
     *
     * @throws ElasticsearchException as the create-index API answers, {@code resource_already_exists_exception}
     *                                included
     */
    public static void create(ElasticsearchClient client, String index, String json) throws IOException {
        RestCall.put("/" + RestCall.segment(index), Map.of(), JsonData.fromJson(json))
                .send(client);
    }

    /**
     * Whether {@code index} exists, asked with a count of its documents: a request the {@code read} privilege
     * permits, which every esrel feature needs on its own indices anyway. The index API's existence check would
     * need {@code view_index_metadata} too, and answers a user without it with a bodiless 403.
     *
     * @throws ElasticsearchException for any answer but a count or {@code index_not_found_exception}, such as a
     *                                403 that names the privilege the user lacks
     */
    public static boolean exists(ElasticsearchClient client, String index) throws IOException {
        try {
            client.count(c -> c.index(index));
            return true;
        } catch (ElasticsearchException e) {
            if (e.status() == 404
                    && e.error() != null
                    && "index_not_found_exception".equals(e.error().type())) {
                return false;
            }
            throw e;
        }
    }

    /**
     * The number of primary shards of an existing index, from the shard count of a count request (one copy of
     * each shard answers it), so that the {@code read} privilege is enough.
     */
    public static int primaryShards(ElasticsearchClient client, String index) throws IOException {
        return client.count(c -> c.index(index)).shards().total().intValue();
    }

    /** Whether a failure says the index was created meanwhile (by another process, say). */
    public static boolean alreadyExists(ElasticsearchException e) {
        return e.error() != null
                && "resource_already_exists_exception".equals(e.error().type());
    }
}
