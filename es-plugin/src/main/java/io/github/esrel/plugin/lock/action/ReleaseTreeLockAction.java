package io.github.esrel.plugin.lock.action;

import org.elasticsearch.action.ActionType;

/** Releases a tree lock (a write on the target index, for security). */
public final class ReleaseTreeLockAction {

    /**
     * The transport action name. Its {@code indices:data/write/} prefix makes Elasticsearch security require
     * a write privilege on the target index.
     */
    public static final String NAME = "indices:data/write/esrel/treelock/release";
    /** The action type the plugin registers and REST handlers execute through the node client. */
    public static final ActionType<ReleaseTreeLockResponse> INSTANCE = new ActionType<>(NAME);

    private ReleaseTreeLockAction() {}
}
