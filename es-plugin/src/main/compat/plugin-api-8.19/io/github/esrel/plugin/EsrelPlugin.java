package io.github.esrel.plugin;

import org.elasticsearch.action.ActionRequest;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.action.ActionType;
import org.elasticsearch.action.support.TransportAction;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.IndexScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.settings.SettingsFilter;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.rest.RestController;
import org.elasticsearch.rest.RestHandler;

import java.util.Collection;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** The esrel plugin for Elasticsearch 8.19 and 9.0: a generic {@code ActionHandler}, the long {@code getRestHandlers} signature. */
public class EsrelPlugin extends EsrelPluginBase {

    /** Creates the plugin; Elasticsearch does so once per node, from the class named in the plugin descriptor. */
    public EsrelPlugin() {}

    @Override
    public Collection<ActionHandler<? extends ActionRequest, ? extends ActionResponse>> getActions() {
        return actions(new HandlerFactory<ActionHandler<? extends ActionRequest, ? extends ActionResponse>>() {
            @Override
            public <Req extends ActionRequest, Resp extends ActionResponse> ActionHandler<Req, Resp> handler(
                ActionType<Resp> action,
                Class<? extends TransportAction<Req, Resp>> transportAction
            ) {
                return new ActionHandler<>(action, transportAction);
            }
        });
    }

    @Override
    public Collection<RestHandler> getRestHandlers(
        Settings settings,
        NamedWriteableRegistry namedWriteableRegistry,
        RestController restController,
        ClusterSettings clusterSettings,
        IndexScopedSettings indexScopedSettings,
        SettingsFilter settingsFilter,
        IndexNameExpressionResolver indexNameExpressionResolver,
        Supplier<DiscoveryNodes> nodesInCluster,
        Predicate<NodeFeature> clusterSupportsFeature
    ) {
        return restHandlers(settings);
    }
}
