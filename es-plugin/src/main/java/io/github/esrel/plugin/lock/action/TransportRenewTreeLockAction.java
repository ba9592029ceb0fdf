package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.TreeLockService;

import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.action.support.HandledTransportAction;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.project.ProjectResolver;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.util.concurrent.EsExecutors;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;

/** Runs {@link RenewTreeLockAction} on the node that received it: resolves the namespace and hands over to {@link TreeLockService}. */
public class TransportRenewTreeLockAction extends HandledTransportAction<RenewTreeLockRequest, RenewTreeLockResponse> {

    private final ClusterService clusterService;
    private final ProjectResolver projectResolver;
    private final IndexNameExpressionResolver indexNameExpressionResolver;
    private final TreeLockService service;

    @Inject
    public TransportRenewTreeLockAction(
        TransportService transportService,
        ActionFilters actionFilters,
        ClusterService clusterService,
        ProjectResolver projectResolver,
        IndexNameExpressionResolver indexNameExpressionResolver,
        TreeLockService service
    ) {
        super(RenewTreeLockAction.NAME, transportService, actionFilters, RenewTreeLockRequest::new, EsExecutors.DIRECT_EXECUTOR_SERVICE);
        this.clusterService = clusterService;
        this.projectResolver = projectResolver;
        this.indexNameExpressionResolver = indexNameExpressionResolver;
        this.service = service;
    }

    @Override
    protected void doExecute(Task task, RenewTreeLockRequest request, ActionListener<RenewTreeLockResponse> listener) {
        String namespace;
        try {
            namespace = TreeLockNamespaces.resolve(projectResolver.getProjectMetadata(clusterService.state()), indexNameExpressionResolver, request);
        } catch (Exception e) {
            listener.onFailure(e);
            return;
        }
        service.renew(namespace, request, listener);
    }
}
