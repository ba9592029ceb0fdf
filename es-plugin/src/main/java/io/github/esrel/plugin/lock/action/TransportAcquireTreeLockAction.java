package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.lock.TreeLockService;

import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.tasks.CancellableTask;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;

/** Runs {@link AcquireTreeLockAction} on the node that received it. */
public class TransportAcquireTreeLockAction extends TreeLockTransportAction<AcquireTreeLockRequest, AcquireTreeLockResponse> {

    @Inject
    public TransportAcquireTreeLockAction(
        TransportService transportService,
        ActionFilters actionFilters,
        ClusterService clusterService,
        ClusterIndices.Reader indices,
        TreeLockService service
    ) {
        super(AcquireTreeLockAction.NAME, AcquireTreeLockRequest::new, transportService, actionFilters, clusterService, indices, service);
    }

    @Override
    protected void execute(Task task, String namespace, AcquireTreeLockRequest request, ActionListener<AcquireTreeLockResponse> listener) {
        service.acquire(namespace, request, task instanceof CancellableTask cancellable ? cancellable : null, listener);
    }
}
