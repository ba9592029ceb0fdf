package io.github.esrel.plugin;

import org.elasticsearch.action.ActionRequest;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.action.ActionType;
import org.elasticsearch.action.support.TransportAction;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.rest.RestHandler;

import java.util.Collection;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** The esrel plugin for Elasticsearch 9.5: a raw {@code ActionHandler}, the short {@code getRestHandlers} signature. */
public class EsrelPlugin extends EsrelPluginBase {

    /** Creates the plugin; Elasticsearch does so once per node, from the class named in the plugin descriptor. */
    public EsrelPlugin() {}

    @Override
    public Collection<ActionHandler> getActions() {
        return actions(new HandlerFactory<>() {
            @Override
            public <Req extends ActionRequest, Resp extends ActionResponse> ActionHandler handler(
                ActionType<Resp> action,
                Class<? extends TransportAction<Req, Resp>> transportAction
            ) {
                return new ActionHandler(action, transportAction);
            }
        });
    }

    @Override
    public Collection<RestHandler> getRestHandlers(
        RestHandlersServices services,
        Supplier<DiscoveryNodes> nodesInCluster,
        Predicate<NodeFeature> clusterSupportsFeature
    ) {
        return restHandlers(services.settings());
    }
}
