package io.github.esrel.plugin.lock.action;

import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.action.support.HandledTransportAction;
import org.elasticsearch.common.util.concurrent.EsExecutors;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;

/** Runs {@link OverrideTreeLockBindingAction}: reaching it means security allowed it, which is the answer. */
public class TransportOverrideTreeLockBindingAction
        extends HandledTransportAction<OverrideTreeLockBindingRequest, ActionResponse.Empty> {

    /**
     * Created by Elasticsearch's injector when the plugin registers the action.
     *
     * @param transportService the node's transport service, to register the action with
     * @param actionFilters    the action filters, such as security's, which decide the answer
     */
    @Inject
    public TransportOverrideTreeLockBindingAction(TransportService transportService, ActionFilters actionFilters) {
        super(
                OverrideTreeLockBindingAction.NAME,
                transportService,
                actionFilters,
                OverrideTreeLockBindingRequest::new,
                EsExecutors.DIRECT_EXECUTOR_SERVICE);
    }

    @Override
    protected void doExecute(
            Task task, OverrideTreeLockBindingRequest request, ActionListener<ActionResponse.Empty> listener) {
        listener.onResponse(ActionResponse.Empty.INSTANCE);
    }
}
