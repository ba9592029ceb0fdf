package io.github.esrel.plugin.routing.action;

import org.elasticsearch.action.ActionType;

/**
 * Shard calculation for documents of an existing index. A read action on indices, so Elasticsearch
 * security authorizes it per index like a search.
 */
public final class RoutingCalcAction {

    public static final String NAME = "indices:data/read/esrel/routing/calc";
    public static final ActionType<RoutingCalcResponse> INSTANCE = new ActionType<>(NAME);

    private RoutingCalcAction() {}
}
