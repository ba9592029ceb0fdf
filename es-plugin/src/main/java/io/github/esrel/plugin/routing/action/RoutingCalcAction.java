package io.github.esrel.plugin.routing.action;

import org.elasticsearch.action.ActionType;

/**
 * Shard calculation for documents of an existing index. A read action on indices, so Elasticsearch
 * security authorizes it per index like a search.
 */
public final class RoutingCalcAction {

    /**
     * The transport action name. Its {@code indices:data/read/} prefix makes Elasticsearch security require a
     * read privilege on the target index.
     */
    public static final String NAME = "indices:data/read/esrel/routing/calc";
    /** The action type the plugin registers and the REST handler executes through the node client. */
    public static final ActionType<RoutingCalcResponse> INSTANCE = new ActionType<>(NAME);

    private RoutingCalcAction() {}
}
