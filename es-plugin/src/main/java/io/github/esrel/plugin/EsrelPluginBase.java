package io.github.esrel.plugin;

import io.github.esrel.plugin.lock.TreeLockIndex;
import io.github.esrel.plugin.lock.TreeLockService;
import io.github.esrel.plugin.lock.TreeLockSettings;
import io.github.esrel.plugin.lock.action.AcquireTreeLockAction;
import io.github.esrel.plugin.lock.action.ListTreeLocksAction;
import io.github.esrel.plugin.lock.action.ReleaseTreeLockAction;
import io.github.esrel.plugin.lock.action.RenewTreeLockAction;
import io.github.esrel.plugin.lock.action.TransportAcquireTreeLockAction;
import io.github.esrel.plugin.lock.action.TransportListTreeLocksAction;
import io.github.esrel.plugin.lock.action.TransportReleaseTreeLockAction;
import io.github.esrel.plugin.lock.action.TransportRenewTreeLockAction;
import io.github.esrel.plugin.lock.rest.RestAcquireTreeLockAction;
import io.github.esrel.plugin.lock.rest.RestListTreeLocksAction;
import io.github.esrel.plugin.lock.rest.RestReleaseTreeLockAction;
import io.github.esrel.plugin.lock.rest.RestRenewTreeLockAction;
import io.github.esrel.plugin.routing.RoutingCalculator;
import io.github.esrel.plugin.routing.action.HypotheticalRoutingCalcAction;
import io.github.esrel.plugin.routing.action.RoutingCalcAction;
import io.github.esrel.plugin.routing.action.TransportHypotheticalRoutingCalcAction;
import io.github.esrel.plugin.routing.action.TransportRoutingCalcAction;
import io.github.esrel.plugin.routing.rest.RestRoutingCalcAction;

import org.elasticsearch.common.settings.Setting;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.indices.SystemIndexDescriptor;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.SystemIndexPlugin;
import org.elasticsearch.rest.RestHandler;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The wiring every Elasticsearch version shares. {@code EsrelPlugin} (one per supported version, in
 * {@code src/main/compat-*}) adds only the REST registration, whose signature differs between versions.
 */
public abstract class EsrelPluginBase extends Plugin implements SystemIndexPlugin {

    @Override
    public Collection<?> createComponents(PluginServices services) {
        Settings settings = services.environment().settings();
        // Bound by Guice by their classes, so the transport actions get them injected.
        return List.of(
            RoutingCalculator.fromSettings(settings),
            new TreeLockService(services.client(), services.threadPool(), services.clusterService().getClusterSettings(), settings)
        );
    }

    @Override
    public List<Setting<?>> getSettings() {
        List<Setting<?>> settings = new ArrayList<>();
        settings.add(RoutingCalculator.MAX_BATCH_DOCS_SETTING);
        settings.addAll(TreeLockSettings.all());
        return settings;
    }

    @Override
    public Collection<ActionHandler> getActions() {
        return List.of(
            new ActionHandler(RoutingCalcAction.INSTANCE, TransportRoutingCalcAction.class),
            new ActionHandler(HypotheticalRoutingCalcAction.INSTANCE, TransportHypotheticalRoutingCalcAction.class),
            new ActionHandler(AcquireTreeLockAction.INSTANCE, TransportAcquireTreeLockAction.class),
            new ActionHandler(ReleaseTreeLockAction.INSTANCE, TransportReleaseTreeLockAction.class),
            new ActionHandler(RenewTreeLockAction.INSTANCE, TransportRenewTreeLockAction.class),
            new ActionHandler(ListTreeLocksAction.INSTANCE, TransportListTreeLocksAction.class)
        );
    }

    @Override
    public Collection<SystemIndexDescriptor> getSystemIndexDescriptors(Settings settings) {
        return List.of(TreeLockIndex.descriptor());
    }

    @Override
    public String getFeatureName() {
        return "esrel";
    }

    @Override
    public String getFeatureDescription() {
        return "esrel tree locks: lock tables and fencing token counters";
    }

    /** The REST handlers, given the node settings. */
    protected final Collection<RestHandler> restHandlers(Settings settings) {
        return List.of(
            new RestRoutingCalcAction(RoutingCalculator.MAX_BATCH_DOCS_SETTING.get(settings)),
            new RestAcquireTreeLockAction(),
            new RestReleaseTreeLockAction(),
            new RestRenewTreeLockAction(),
            new RestListTreeLocksAction()
        );
    }
}
