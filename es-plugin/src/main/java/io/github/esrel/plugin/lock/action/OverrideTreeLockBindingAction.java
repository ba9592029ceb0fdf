package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.lock.GrantBindings;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.action.ActionType;

/**
 * The question "may this caller release or renew grants bound to other users?", put to Elasticsearch security:
 * release and renew run it as the caller when they meet such a grant, and security answers by authorizing it or
 * not. It does nothing else. A {@code cluster:admin/} action, so the cluster privileges {@code manage} and
 * {@code all} include it; a role may also name it alone.
 */
public final class OverrideTreeLockBindingAction {

    /** The transport action name, {@value GrantBindings#OVERRIDE_ACTION}. */
    public static final String NAME = GrantBindings.OVERRIDE_ACTION;
    /** The action type the plugin registers and release and renew execute through the node client. */
    public static final ActionType<ActionResponse.Empty> INSTANCE = new ActionType<>(NAME);

    private OverrideTreeLockBindingAction() {}
}
