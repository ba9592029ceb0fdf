package io.github.esrel.plugin.lock.action;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.lock.AcquireCommand;
import io.github.esrel.plugin.lock.Cancellation;
import io.github.esrel.plugin.lock.TreeLockService;
import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import java.util.Objects;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.support.ActionFilters;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.elasticsearch.injection.guice.Inject;
import org.elasticsearch.tasks.CancellableTask;
import org.elasticsearch.tasks.Task;
import org.elasticsearch.transport.TransportService;

/** Runs {@link AcquireTreeLockAction} on the node that received it. */
public class TransportAcquireTreeLockAction
        extends TreeLockTransportAction<AcquireTreeLockRequest, AcquireTreeLockResponse> {

    private final ThreadContext threadContext;

    /**
     * Created by Elasticsearch's injector when the plugin registers the action.
     *
     * @param transportService the node's transport service, to register the action with
     * @param actionFilters    the action filters, such as security's, applied before the action runs
     * @param indices          reads the indices of the current cluster state, for the server line the plugin runs
     *                         on: they resolve the target index
     * @param service          the node's tree lock service, which takes the lock
     */
    @Inject
    public TransportAcquireTreeLockAction(
            TransportService transportService,
            ActionFilters actionFilters,
            ClusterIndices.Reader indices,
            TreeLockService service) {
        super(
                AcquireTreeLockAction.NAME,
                AcquireTreeLockRequest::new,
                transportService,
                actionFilters,
                indices,
                service);
        this.threadContext = transportService.getThreadPool().getThreadContext();
    }

    /** The user to bind the grant to: the authenticated caller, who must exist. */
    private AuthenticatedUser bindingUser() {
        AuthenticatedUser user = AuthenticatedUser.current(threadContext);
        if (user == null) {
            throw new IllegalArgumentException(
                    "bind_to_user needs an authenticated user, and this request has none: Elasticsearch security is off"
                            + " (then anyone may release any lock anyway); leave bind_to_user out");
        }
        return user;
    }

    @Override
    protected void execute(
            Task task,
            String namespace,
            AcquireTreeLockRequest request,
            ActionListener<AcquireTreeLockResponse> listener) {
        AcquireCommand command;
        try {
            // validate() refused a request without a path or an owner.
            command = new AcquireCommand(
                    namespace,
                    Objects.requireNonNull(request.path()),
                    request.mode(),
                    Objects.requireNonNull(request.owner()),
                    request.ttl(),
                    request.waitTime(),
                    request.bindToUser() ? bindingUser() : null,
                    request.grantId());
        } catch (RuntimeException e) {
            listener.onFailure(e);
            return;
        }
        Cancellation cancellation =
                task instanceof CancellableTask cancellable ? Cancellation.of(cancellable) : Cancellation.NONE;
        service.acquire(
                command,
                cancellation,
                listener.map(acquisition -> acquisition.acquired()
                        ? AcquireTreeLockResponse.acquired(namespace, acquisition.grant())
                        : AcquireTreeLockResponse.conflict(namespace, acquisition.conflicts())));
    }
}
