package io.github.esrel.plugin.routing.action;

import org.elasticsearch.action.ActionType;

/**
 * Shard calculation for an index that does not exist (given its parameters). It reads no index, so it
 * is a cluster monitoring action: users with the {@code monitor} cluster privilege may call it.
 */
public final class HypotheticalRoutingCalcAction {

    public static final String NAME = "cluster:monitor/esrel/routing/calc";
    public static final ActionType<RoutingCalcResponse> INSTANCE = new ActionType<>(NAME);

    private HypotheticalRoutingCalcAction() {}
}
