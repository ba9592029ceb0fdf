package io.github.esrel.plugin.routing.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.action.support.HandledTransportAction;
import org.elasticsearch.common.util.concurrent.EsExecutors;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;

/**
 * Runs {@link RoutingCalcAction} on the node that received it, against its current cluster state. The work
 * is pure computation over metadata (microseconds per doc), so it runs on the calling thread.
 */
public class TransportRoutingCalcAction extends HandledTransportAction<RoutingCalcRequest, RoutingCalcResponse> {

    private final ClusterIndices.Reader indices;
    private final RoutingCalculator calculator;

    /**
     * Created by Elasticsearch's injector when the plugin registers the action.
     *
     * @param transportService the node's transport service, to register the action with
     * @param actionFilters    the action filters, such as security's, applied before the action runs
     * @param indices          reads the indices of the current cluster state, for the server line the plugin runs on
     * @param calculator       the node's calculator, which computes the answer
     */
    @Inject
    public TransportRoutingCalcAction(
            TransportService transportService,
            ActionFilters actionFilters,
            ClusterIndices.Reader indices,
            RoutingCalculator calculator) {
        super(
                RoutingCalcAction.NAME,
                transportService,
                actionFilters,
                RoutingCalcRequest::new,
                EsExecutors.DIRECT_EXECUTOR_SERVICE);
        this.indices = indices;
        this.calculator = calculator;
    }

    @Override
    protected void doExecute(Task task, RoutingCalcRequest request, ActionListener<RoutingCalcResponse> listener) {
        // completeWith routes every exception to the listener: the caller always gets an answer.
        ActionListener.completeWith(listener, () -> calculator.calculate(indices.current(), request));
    }
}
