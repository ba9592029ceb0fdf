package io.github.esrel.plugin.lock.rest;

import static org.elasticsearch.rest.RestRequest.Method.GET;

import io.github.esrel.plugin.lock.action.ListTreeLocksAction;
import io.github.esrel.plugin.lock.action.ListTreeLocksRequest;
import java.util.List;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.action.RestToXContentListener;

/**
 * {@code GET /{index}/_treelock[?path=/a][&size=1000][&after=/a/k]}: the live locks on the path or below it, all
 * of them, or a page of at most {@code size} paths after {@code after} (the previous page's {@code next}).
 */
public class RestListTreeLocksAction extends BaseRestHandler {

    /** Creates the handler; the plugin registers one per node in {@code getRestHandlers}. */
    public RestListTreeLocksAction() {}

    @Override
    public String getName() {
        return "esrel_treelock_list_action";
    }

    @Override
    public List<Route> routes() {
        return List.of(new Route(GET, "/{index}/_treelock"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
        if (request.hasContent()) {
            throw new IllegalArgumentException(
                    "GET /{index}/_treelock takes no body; filter with ?path=/a, page with ?size=1000&after=<next>");
        }
        ListTreeLocksRequest list = new ListTreeLocksRequest(
                request.param("index"),
                request.param("path"),
                request.param("after"),
                request.hasParam("size") ? request.paramAsInt("size", 0) : null);
        return channel -> client.execute(ListTreeLocksAction.INSTANCE, list, new RestToXContentListener<>(channel));
    }
}
