package io.github.esrel.plugin.lock.rest;

import static org.elasticsearch.rest.RestRequest.Method.POST;

import io.github.esrel.plugin.lock.action.RenewTreeLockAction;
import io.github.esrel.plugin.lock.action.RenewTreeLockRequest;
import java.io.IOException;
import java.util.List;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.action.RestToXContentListener;
import org.elasticsearch.xcontent.XContentParser;

/** {@code POST /{index}/_treelock/renew}: 200 with the new expiry, 404 / 409 as for release. */
public class RestRenewTreeLockAction extends BaseRestHandler {

    /** Creates the handler; the plugin registers one per node in {@code getRestHandlers}. */
    public RestRenewTreeLockAction() {}

    @Override
    public String getName() {
        return "esrel_treelock_renew_action";
    }

    @Override
    public List<Route> routes() {
        return List.of(new Route(POST, "/{index}/_treelock/renew"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) throws IOException {
        String index = request.param("index");
        RenewTreeLockRequest renew;
        try (XContentParser parser = RestBodies.parser(request, RenewTreeLockRequest.EXAMPLE)) {
            renew = RenewTreeLockRequest.fromXContent(index, parser);
        }
        return channel -> client.execute(RenewTreeLockAction.INSTANCE, renew, new RestToXContentListener<>(channel));
    }
}
