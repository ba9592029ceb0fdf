package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.lock.GrantRef;
import io.github.esrel.plugin.lock.TreeLockService;
import io.github.esrel.plugin.lock.grant.Caller;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.transport.TransportService;

/** Runs {@link ReleaseTreeLockAction} on the node that received it. */
public class TransportReleaseTreeLockAction
        extends HolderTreeLockTransportAction<ReleaseTreeLockRequest, ReleaseTreeLockResponse> {

    /**
     * Created by Elasticsearch's injector when the plugin registers the action.
     *
     * @param transportService the node's transport service, to register the action with
     * @param actionFilters    the action filters, such as security's, applied before the action runs
     * @param indices          reads the indices of the current cluster state, for the server line the plugin runs
     *                         on: they resolve the target index
     * @param service          the node's tree lock service, which ends the grant
     * @param client           the node client, to ask security whether the caller may override a user binding
     */
    @Inject
    public TransportReleaseTreeLockAction(
            TransportService transportService,
            ActionFilters actionFilters,
            ClusterIndices.Reader indices,
            TreeLockService service,
            NodeClient client) {
        super(
                ReleaseTreeLockAction.NAME,
                ReleaseTreeLockRequest::new,
                transportService,
                actionFilters,
                indices,
                service,
                client);
    }

    @Override
    void change(
            GrantRef grant,
            Caller caller,
            ReleaseTreeLockRequest request,
            ActionListener<ReleaseTreeLockResponse> listener) {
        service.release(grant, request.grantId(), caller, listener.map(released -> ReleaseTreeLockResponse.RELEASED));
    }
}
