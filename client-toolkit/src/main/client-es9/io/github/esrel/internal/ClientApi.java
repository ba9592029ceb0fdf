package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Script;
import co.elastic.clients.elasticsearch.cluster.state.ClusterStateMetric;
import co.elastic.clients.elasticsearch.core.SearchRequest;
import co.elastic.clients.elasticsearch.core.msearch.RequestItem;
import co.elastic.clients.elasticsearch.indices.GetIndicesSettingsResponse;
import co.elastic.clients.elasticsearch.indices.GetMappingResponse;
import co.elastic.clients.elasticsearch.indices.IndexState;
import co.elastic.clients.elasticsearch.indices.get_mapping.IndexMappingRecord;
import co.elastic.clients.elasticsearch.nodes.info.NodeInfo;
import co.elastic.clients.elasticsearch.nodes.info.NodesInfoMetric;
import co.elastic.clients.json.JsonData;
import java.io.IOException;
import java.util.Map;

/**
 * What esrel needs from {@code elasticsearch-java} that its 8.x and 9.x lines spell differently: the one seam
 * between esrel's code and the client line. This copy is compiled into {@code esrel-client} (elasticsearch-java
 * 9.x); {@code src/main/client-es8} holds the copy for {@code esrel-client-es8}, with the same members.
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
public final class ClientApi {

    /** The artifact built from this copy. */
    public static final String ARTIFACT = "esrel-client";
    /** The major version of the elasticsearch-java line this copy is compiled against. */
    public static final int CLIENT_MAJOR = 9;
    /** The artifact to use instead when the server refuses this client line. */
    public static final String OTHER_ARTIFACT = "esrel-client-es8";

    private ClientApi() {}

    /** The plugins and modules of every node, by node id: one nodes-info request. */
    public static Map<String, NodeComponents> nodeComponents(ElasticsearchClient client) throws IOException {
        Map<String, NodeInfo> nodes =
                client.nodes().info(b -> b.metric(NodesInfoMetric.Plugins)).nodes();
        return NodeComponents.of(nodes);
    }

    /** The {@code metadata} of the cluster state, restricted to {@code index}, as JSON. */
    public static JsonData clusterStateMetadata(ElasticsearchClient client, String index) throws IOException {
        return client.cluster()
                .state(b -> b.metric(ClusterStateMetric.Metadata).index(index))
                .state();
    }

    /** A painless script with its source inline. */
    public static Script painless(String source, Map<String, JsonData> params) {
        return Script.of(
                s -> s.lang("painless").source(src -> src.scriptString(source)).params(params));
    }

    /** One search of an {@code _msearch}: the index and preference in the header, the rest in the body. */
    public static RequestItem msearchItem(ElasticsearchClient client, SearchRequest request) {
        return RequestItem.of(i -> i.header(h -> {
                    h.index(request.index());
                    if (request.preference() != null) {
                        // Not part of the body: a search's preference travels in its msearch header.
                        h.preference(request.preference());
                    }
                    return h;
                })
                .body(request));
    }

    /** The mappings of each index in a get-mapping answer. */
    public static Map<String, IndexMappingRecord> mappings(GetMappingResponse response) {
        return response.mappings();
    }

    /** The settings of each index in a get-settings answer. */
    public static Map<String, IndexState> settings(GetIndicesSettingsResponse response) {
        return response.settings();
    }
}
