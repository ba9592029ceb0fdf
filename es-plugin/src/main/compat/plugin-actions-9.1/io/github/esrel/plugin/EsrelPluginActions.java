package io.github.esrel.plugin;

import java.util.Collection;

/** Elasticsearch 9.1 and later register actions as a plain {@code ActionHandler}. */
abstract class EsrelPluginActions extends EsrelPluginBase {

    @Override
    public Collection<ActionHandler> getActions() {
        return actions(ActionHandler::new);
    }
}
