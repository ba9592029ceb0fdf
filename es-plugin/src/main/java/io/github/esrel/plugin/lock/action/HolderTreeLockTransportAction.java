package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.lock.GrantBindings;
import io.github.esrel.plugin.lock.GrantRef;
import io.github.esrel.plugin.lock.TreeLockService;
import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.Caller;
import java.util.Objects;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.common.io.stream.Writeable;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;
import org.jspecify.annotations.Nullable;

/**
 * Release and renew: a change to the grant the request names, on behalf of the authenticated caller. When the
 * grant is bound to another user, the caller's own request is refused with a 403 unless Elasticsearch security
 * allows the caller {@link OverrideTreeLockBindingAction}, which is asked then (and only then), as the caller;
 * if it does, the change is made again, overriding the binding.
 */
abstract class HolderTreeLockTransportAction<Request extends HolderTreeLockRequest, Response extends ActionResponse>
        extends TreeLockTransportAction<Request, Response> {

    private static final Logger logger = LogManager.getLogger(HolderTreeLockTransportAction.class);

    private final NodeClient client;
    private final ThreadContext threadContext;

    HolderTreeLockTransportAction(
            String actionName,
            Writeable.Reader<Request> reader,
            TransportService transportService,
            ActionFilters actionFilters,
            ClusterIndices.Reader indices,
            TreeLockService service,
            NodeClient client) {
        super(actionName, reader, transportService, actionFilters, indices, service);
        this.client = client;
        this.threadContext = transportService.getThreadPool().getThreadContext();
    }

    @Override
    protected final void execute(Task task, String namespace, Request request, ActionListener<Response> listener) {
        // validate() refused a request without a path or an owner.
        GrantRef grant = new GrantRef(
                namespace,
                Objects.requireNonNull(request.path()),
                Objects.requireNonNull(request.owner()),
                request.token());
        Caller caller = Caller.of(callingUser());
        change(grant, caller, request, listener.delegateResponse((answer, refused) -> {
            if (GrantBindings.boundTo(refused) == null) {
                answer.onFailure(refused);
                return;
            }
            // Runs as the caller (the listener is called in the caller's context): security decides.
            client.execute(
                    OverrideTreeLockBindingAction.INSTANCE,
                    new OverrideTreeLockBindingRequest(request.getDescription()),
                    ActionListener.wrap(
                            allowed -> change(grant, caller.overriding(), request, answer),
                            denied -> answer.onFailure(refused)));
        }));
    }

    /** Releases or renews the grant on behalf of {@code caller}. */
    abstract void change(GrantRef grant, Caller caller, Request request, ActionListener<Response> listener);

    /** The authenticated user, or null; a grant bound to a user then needs the override, which security decides. */
    private @Nullable AuthenticatedUser callingUser() {
        try {
            return AuthenticatedUser.current(threadContext);
        } catch (IllegalStateException e) {
            logger.warn(
                    "cannot tell who released or renewed a tree lock; grants bound to users need the binding override",
                    e);
            return null;
        }
    }
}
