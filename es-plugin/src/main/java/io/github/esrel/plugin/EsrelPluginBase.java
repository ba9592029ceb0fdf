package io.github.esrel.plugin;

import io.github.esrel.plugin.routing.RoutingCalculator;
import io.github.esrel.plugin.routing.action.HypotheticalRoutingCalcAction;
import io.github.esrel.plugin.routing.action.RoutingCalcAction;
import io.github.esrel.plugin.routing.action.TransportHypotheticalRoutingCalcAction;
import io.github.esrel.plugin.routing.action.TransportRoutingCalcAction;
import io.github.esrel.plugin.routing.rest.RestRoutingCalcAction;

import org.elasticsearch.common.settings.Setting;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.RestHandler;

import java.util.Collection;
import java.util.List;

/**
 * The wiring every Elasticsearch version shares. {@code EsrelPlugin} (one per supported version, in
 * {@code src/main/compat-*}) adds only the REST registration, whose signature differs between versions.
 */
public abstract class EsrelPluginBase extends Plugin implements ActionPlugin {

    @Override
    public Collection<?> createComponents(PluginServices services) {
        // Bound by Guice by its class, so the transport actions get it injected.
        return List.of(RoutingCalculator.fromSettings(services.environment().settings()));
    }

    @Override
    public List<Setting<?>> getSettings() {
        return List.of(RoutingCalculator.MAX_BATCH_DOCS_SETTING);
    }

    @Override
    public Collection<ActionHandler> getActions() {
        return List.of(
            new ActionHandler(RoutingCalcAction.INSTANCE, TransportRoutingCalcAction.class),
            new ActionHandler(HypotheticalRoutingCalcAction.INSTANCE, TransportHypotheticalRoutingCalcAction.class)
        );
    }

    /** The REST handlers, given the node settings. */
    protected final Collection<RestHandler> restHandlers(Settings settings) {
        return List.of(new RestRoutingCalcAction(RoutingCalculator.MAX_BATCH_DOCS_SETTING.get(settings)));
    }
}
