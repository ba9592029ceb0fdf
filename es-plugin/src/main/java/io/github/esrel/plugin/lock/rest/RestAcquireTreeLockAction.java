package io.github.esrel.plugin.lock.rest;

import static org.elasticsearch.rest.RestRequest.Method.POST;

import io.github.esrel.plugin.lock.action.AcquireTreeLockAction;
import io.github.esrel.plugin.lock.action.AcquireTreeLockRequest;
import io.github.esrel.plugin.lock.action.AcquireTreeLockResponse;
import java.io.IOException;
import java.util.List;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.action.RestCancellableNodeClient;
import org.elasticsearch.rest.action.RestToXContentListener;
import org.elasticsearch.xcontent.XContentParser;

/**
 * {@code POST /{index}/_treelock/acquire}: 200 with the grant or 409 with the conflicts, both as ordinary
 * bodies. The request is cancelled when the HTTP connection closes, which ends a wait.
 */
public class RestAcquireTreeLockAction extends BaseRestHandler {

    /** Creates the handler; the plugin registers one per node in {@code getRestHandlers}. */
    public RestAcquireTreeLockAction() {}

    @Override
    public String getName() {
        return "esrel_treelock_acquire_action";
    }

    @Override
    public List<Route> routes() {
        return List.of(new Route(POST, "/{index}/_treelock/acquire"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) throws IOException {
        String index = request.param("index");
        AcquireTreeLockRequest acquire;
        try (XContentParser parser = RestBodies.parser(request, AcquireTreeLockRequest.EXAMPLE)) {
            acquire = AcquireTreeLockRequest.fromXContent(index, parser);
        }
        return channel -> new RestCancellableNodeClient(client, request.getHttpChannel())
                .execute(
                        AcquireTreeLockAction.INSTANCE,
                        acquire,
                        new RestToXContentListener<>(channel, AcquireTreeLockResponse::status));
    }
}
