package io.github.esrel.plugin.lock.action;

import org.elasticsearch.action.ActionType;

/** Lists the live tree locks of an index (a read on it, for security). */
public final class ListTreeLocksAction {

    /**
     * The transport action name. Its {@code indices:data/read/} prefix makes Elasticsearch security require
     * a read privilege on the target index.
     */
    public static final String NAME = "indices:data/read/esrel/treelock/list";
    /** The action type the plugin registers and REST handlers execute through the node client. */
    public static final ActionType<ListTreeLocksResponse> INSTANCE = new ActionType<>(NAME);

    private ListTreeLocksAction() {}
}
