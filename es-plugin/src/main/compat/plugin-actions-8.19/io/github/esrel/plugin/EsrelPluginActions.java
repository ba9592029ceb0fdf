package io.github.esrel.plugin;

import java.util.Collection;
import org.elasticsearch.action.ActionRequest;
import org.elasticsearch.action.ActionResponse;

/** Elasticsearch 8.19 and 9.0 register actions as a generic {@code ActionHandler<Request, Response>}. */
abstract class EsrelPluginActions extends EsrelPluginBase {

    @Override
    public Collection<ActionHandler<? extends ActionRequest, ? extends ActionResponse>> getActions() {
        return actions(ActionHandler::new);
    }
}
