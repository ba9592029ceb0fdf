package io.github.esrel.plugin.routing.rest;

import static org.elasticsearch.rest.RestRequest.Method.GET;
import static org.elasticsearch.rest.RestRequest.Method.POST;

import io.github.esrel.plugin.routing.action.HypotheticalRoutingCalcAction;
import io.github.esrel.plugin.routing.action.HypotheticalRoutingCalcRequest;
import io.github.esrel.plugin.routing.action.RoutingCalcAction;
import io.github.esrel.plugin.routing.action.RoutingCalcRequest;
import java.io.IOException;
import java.util.List;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.common.Strings;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.action.RestToXContentListener;
import org.elasticsearch.xcontent.XContentParser;

/**
 * {@code GET|POST /{index}/_routing_calc} (query parameters {@code id}, {@code routing}, or a
 * {@code {"docs": [...]}} body) and {@code POST /_routing_calc} (a hypothetical index).
 */
public class RestRoutingCalcAction extends BaseRestHandler {

    private final int maxBatchDocs;

    /**
     * Creates the handler; the plugin registers one per node in {@code getRestHandlers}.
     *
     * @param maxBatchDocs bodies with more docs are refused while being read (the node setting
     *                     {@code esrel.routing.max_batch_docs})
     */
    public RestRoutingCalcAction(int maxBatchDocs) {
        this.maxBatchDocs = maxBatchDocs;
    }

    @Override
    public String getName() {
        return "esrel_routing_calc_action";
    }

    @Override
    public List<Route> routes() {
        return List.of(
                new Route(GET, "/{index}/_routing_calc"),
                new Route(POST, "/{index}/_routing_calc"),
                new Route(POST, "/_routing_calc"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) throws IOException {
        if (request.hasParam("index") == false) {
            if (request.hasContent() == false) {
                throw new IllegalArgumentException(
                        "request body is required, e.g. {\"number_of_shards\": 5, \"docs\": [{\"id\": \"1\"}]}; for an existing index use /{index}/_routing_calc");
            }
            HypotheticalRoutingCalcRequest hypothetical;
            try (XContentParser parser = request.contentParser()) {
                hypothetical = HypotheticalRoutingCalcRequest.fromXContent(parser, maxBatchDocs);
            }
            return channel -> client.execute(
                    HypotheticalRoutingCalcAction.INSTANCE, hypothetical, new RestToXContentListener<>(channel));
        }
        String[] indices = Strings.splitStringByCommaToArray(request.param("index"));
        // Consumed before the body is looked at, so a body with id/routing is a clear validation error
        // rather than "unrecognized parameter".
        String id = request.param("id");
        String routing = request.param("routing");
        RoutingCalcRequest calc;
        if (request.hasContent()) {
            try (XContentParser parser = request.contentParser()) {
                RoutingCalcRequest batch = RoutingCalcRequest.fromXContent(indices, parser, maxBatchDocs);
                calc = new RoutingCalcRequest(indices, id, routing, batch.docs());
            }
        } else {
            calc = new RoutingCalcRequest(indices, id, routing, null);
        }
        return channel -> client.execute(RoutingCalcAction.INSTANCE, calc, new RestToXContentListener<>(channel));
    }
}
