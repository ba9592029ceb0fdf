package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.lock.TreeLockService;
import io.github.esrel.plugin.lock.grant.TreePath;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;

/** Runs {@link ListTreeLocksAction} on the node that received it. */
public class TransportListTreeLocksAction extends TreeLockTransportAction<ListTreeLocksRequest, ListTreeLocksResponse> {

    /**
     * Created by Elasticsearch's injector when the plugin registers the action.
     *
     * @param transportService the node's transport service, to register the action with
     * @param actionFilters    the action filters, such as security's, applied before the action runs
     * @param indices          reads the indices of the current cluster state, for the server line the plugin runs
     *                         on: they resolve the target index
     * @param service          the node's tree lock service, which reads the lock table
     */
    @Inject
    public TransportListTreeLocksAction(
            TransportService transportService,
            ActionFilters actionFilters,
            ClusterIndices.Reader indices,
            TreeLockService service) {
        super(ListTreeLocksAction.NAME, ListTreeLocksRequest::new, transportService, actionFilters, indices, service);
    }

    @Override
    protected void execute(
            Task task, String namespace, ListTreeLocksRequest request, ActionListener<ListTreeLocksResponse> listener) {
        String prefix = request.path() == null ? TreePath.ROOT : request.path();
        int maxPaths = request.size() == null ? Integer.MAX_VALUE : request.size();
        service.list(
                namespace,
                prefix,
                request.after(),
                maxPaths,
                listener.map(page -> new ListTreeLocksResponse(namespace, page.grants(), page.next())));
    }
}
