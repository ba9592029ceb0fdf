package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.lock.TreeLockService;

import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;

/** Runs {@link ListTreeLocksAction} on the node that received it. */
public class TransportListTreeLocksAction extends TreeLockTransportAction<ListTreeLocksRequest, ListTreeLocksResponse> {

    @Inject
    public TransportListTreeLocksAction(
        TransportService transportService,
        ActionFilters actionFilters,
        ClusterService clusterService,
        ClusterIndices.Reader indices,
        TreeLockService service
    ) {
        super(ListTreeLocksAction.NAME, ListTreeLocksRequest::new, transportService, actionFilters, clusterService, indices, service);
    }

    @Override
    protected void execute(Task task, String namespace, ListTreeLocksRequest request, ActionListener<ListTreeLocksResponse> listener) {
        service.list(namespace, request, listener);
    }
}
