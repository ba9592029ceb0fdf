package io.github.esrel.plugin.routing.action;

import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.action.support.HandledTransportAction;
import org.elasticsearch.common.util.concurrent.EsExecutors;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;

/** Runs {@link HypotheticalRoutingCalcAction}: no cluster state involved, pure computation on the calling thread. */
public class TransportHypotheticalRoutingCalcAction
        extends HandledTransportAction<HypotheticalRoutingCalcRequest, RoutingCalcResponse> {

    private final RoutingCalculator calculator;

    /**
     * Created by Elasticsearch's injector when the plugin registers the action.
     *
     * @param transportService the node's transport service, to register the action with
     * @param actionFilters    the action filters, such as security's, applied before the action runs
     * @param calculator       the node's calculator, which computes the answer
     */
    @Inject
    public TransportHypotheticalRoutingCalcAction(
            TransportService transportService, ActionFilters actionFilters, RoutingCalculator calculator) {
        super(
                HypotheticalRoutingCalcAction.NAME,
                transportService,
                actionFilters,
                HypotheticalRoutingCalcRequest::new,
                EsExecutors.DIRECT_EXECUTOR_SERVICE);
        this.calculator = calculator;
    }

    @Override
    protected void doExecute(
            Task task, HypotheticalRoutingCalcRequest request, ActionListener<RoutingCalcResponse> listener) {
        ActionListener.completeWith(listener, () -> calculator.calculate(request));
    }
}
