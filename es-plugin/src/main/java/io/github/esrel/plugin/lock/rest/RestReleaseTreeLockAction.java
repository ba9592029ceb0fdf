package io.github.esrel.plugin.lock.rest;

import static org.elasticsearch.rest.RestRequest.Method.POST;

import io.github.esrel.plugin.lock.action.ReleaseTreeLockAction;
import io.github.esrel.plugin.lock.action.ReleaseTreeLockRequest;
import java.io.IOException;
import java.util.List;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.action.RestToXContentListener;
import org.elasticsearch.xcontent.XContentParser;

/** {@code POST /{index}/_treelock/release}: 200 {@code {"released": true}}, 404 not held, 409 held by another. */
public class RestReleaseTreeLockAction extends BaseRestHandler {

    /** Creates the handler; the plugin registers one per node in {@code getRestHandlers}. */
    public RestReleaseTreeLockAction() {}

    @Override
    public String getName() {
        return "esrel_treelock_release_action";
    }

    @Override
    public List<Route> routes() {
        return List.of(new Route(POST, "/{index}/_treelock/release"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) throws IOException {
        String index = request.param("index");
        ReleaseTreeLockRequest release;
        try (XContentParser parser = RestBodies.parser(request, ReleaseTreeLockRequest.EXAMPLE)) {
            release = ReleaseTreeLockRequest.fromXContent(index, parser);
        }
        return channel ->
                client.execute(ReleaseTreeLockAction.INSTANCE, release, new RestToXContentListener<>(channel));
    }
}
