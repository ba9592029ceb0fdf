package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;

import java.io.IOException;
import java.io.StringReader;

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
            if (!client.indices().exists(e -> e.index(index)).value()) {
                client.indices().create(c -> c.index(index).withJson(new StringReader(json)));
            }
        } catch (ElasticsearchException e) {
            if (!alreadyExists(e)) {
                throw e;
            }
        }
    }

    /** Whether a failure says the index was created meanwhile (by another process, say). */
    public static boolean alreadyExists(ElasticsearchException e) {
        return e.error() != null && "resource_already_exists_exception".equals(e.error().type());
    }
}
