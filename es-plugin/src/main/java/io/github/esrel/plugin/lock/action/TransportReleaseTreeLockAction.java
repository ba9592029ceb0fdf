package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.lock.GrantRef;
import io.github.esrel.plugin.lock.TreeLockService;

import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;

/** Runs {@link ReleaseTreeLockAction} on the node that received it. */
public class TransportReleaseTreeLockAction extends TreeLockTransportAction<ReleaseTreeLockRequest, ReleaseTreeLockResponse> {

    /**
     * Created by Elasticsearch's injector when the plugin registers the action.
     *
     * @param transportService the node's transport service, to register the action with
     * @param actionFilters    the action filters, such as security's, applied before the action runs
     * @param clusterService   the cluster service, whose state resolves the target index
     * @param indices          reads the indices of the cluster state, for the server line the plugin runs on
     * @param service          the node's tree lock service, which ends the grant
     */
    @Inject
    public TransportReleaseTreeLockAction(
        TransportService transportService,
        ActionFilters actionFilters,
        ClusterService clusterService,
        ClusterIndices.Reader indices,
        TreeLockService service
    ) {
        super(ReleaseTreeLockAction.NAME, ReleaseTreeLockRequest::new, transportService, actionFilters, clusterService, indices, service);
    }

    @Override
    protected void execute(Task task, String namespace, ReleaseTreeLockRequest request, ActionListener<ReleaseTreeLockResponse> listener) {
        GrantRef grant = new GrantRef(namespace, request.path(), request.owner(), request.token());
        service.release(grant, listener.map(released -> ReleaseTreeLockResponse.RELEASED));
    }
}
