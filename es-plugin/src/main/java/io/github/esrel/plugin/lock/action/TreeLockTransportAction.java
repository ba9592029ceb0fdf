package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.lock.TreeLockService;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.action.support.HandledTransportAction;
import org.elasticsearch.common.io.stream.Writeable;
import org.elasticsearch.common.util.concurrent.EsExecutors;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;

/**
 * What the four tree-lock transport actions share: run on the node that received the request, resolve
 * the target index to its namespace (404 for a missing index, 400 for several), and hand over to
 * {@link TreeLockService}.
 */
abstract class TreeLockTransportAction<Request extends TreeLockRequest, Response extends ActionResponse>
        extends HandledTransportAction<Request, Response> {

    private final ClusterIndices.Reader indices;
    protected final TreeLockService service;

    TreeLockTransportAction(
            String actionName,
            Writeable.Reader<Request> reader,
            TransportService transportService,
            ActionFilters actionFilters,
            ClusterIndices.Reader indices,
            TreeLockService service) {
        super(actionName, transportService, actionFilters, reader, EsExecutors.DIRECT_EXECUTOR_SERVICE);
        this.indices = indices;
        this.service = service;
    }

    @Override
    protected final void doExecute(Task task, Request request, ActionListener<Response> listener) {
        String namespace;
        try {
            namespace = TreeLockNamespaces.resolve(indices.current(), request);
        } catch (Exception e) {
            listener.onFailure(e);
            return;
        }
        execute(task, namespace, request, listener);
    }

    /** Serves the request in the resolved namespace. */
    protected abstract void execute(Task task, String namespace, Request request, ActionListener<Response> listener);
}
