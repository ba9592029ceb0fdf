package io.github.esrel.plugin.routing.action;

import org.elasticsearch.action.ActionType;

/**
 * Shard calculation for an index that does not exist (given its parameters). It reads no index, so it
 * is a cluster monitoring action: users with the {@code monitor} cluster privilege may call it.
 */
public final class HypotheticalRoutingCalcAction {

    /**
     * The transport action name. Its {@code cluster:monitor/} prefix makes Elasticsearch security require the
     * {@code monitor} cluster privilege.
     */
    public static final String NAME = "cluster:monitor/esrel/routing/calc";
    /** The action type the plugin registers and the REST handler executes through the node client. */
    public static final ActionType<RoutingCalcResponse> INSTANCE = new ActionType<>(NAME);

    private HypotheticalRoutingCalcAction() {}
}
