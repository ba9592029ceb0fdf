package io.github.esrel.plugin;

import java.util.Collection;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.rest.RestHandler;

/** The esrel plugin for Elasticsearch 9.5: the short {@code getRestHandlers} signature. */
public class EsrelPlugin extends EsrelPluginActions {

    /** Creates the plugin; Elasticsearch does so once per node, from the class named in the plugin descriptor. */
    public EsrelPlugin() {}

    @Override
    public Collection<RestHandler> getRestHandlers(
            RestHandlersServices services,
            Supplier<DiscoveryNodes> nodesInCluster,
            Predicate<NodeFeature> clusterSupportsFeature) {
        return restHandlers(services.settings());
    }
}
