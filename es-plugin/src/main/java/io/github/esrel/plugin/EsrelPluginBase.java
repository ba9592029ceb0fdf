package io.github.esrel.plugin;

import io.github.esrel.plugin.compat.ClusterIndices;
import io.github.esrel.plugin.lock.TreeLockService;
import io.github.esrel.plugin.lock.TreeLockSettings;
import io.github.esrel.plugin.lock.action.AcquireTreeLockAction;
import io.github.esrel.plugin.lock.action.ListTreeLocksAction;
import io.github.esrel.plugin.lock.action.OverrideTreeLockBindingAction;
import io.github.esrel.plugin.lock.action.ReleaseTreeLockAction;
import io.github.esrel.plugin.lock.action.RenewTreeLockAction;
import io.github.esrel.plugin.lock.action.TransportAcquireTreeLockAction;
import io.github.esrel.plugin.lock.action.TransportListTreeLocksAction;
import io.github.esrel.plugin.lock.action.TransportOverrideTreeLockBindingAction;
import io.github.esrel.plugin.lock.action.TransportReleaseTreeLockAction;
import io.github.esrel.plugin.lock.action.TransportRenewTreeLockAction;
import io.github.esrel.plugin.lock.rest.RestAcquireTreeLockAction;
import io.github.esrel.plugin.lock.rest.RestListTreeLocksAction;
import io.github.esrel.plugin.lock.rest.RestReleaseTreeLockAction;
import io.github.esrel.plugin.lock.rest.RestRenewTreeLockAction;
import io.github.esrel.plugin.lock.store.TreeLockIndex;
import io.github.esrel.plugin.routing.action.HypotheticalRoutingCalcAction;
import io.github.esrel.plugin.routing.action.RoutingCalcAction;
import io.github.esrel.plugin.routing.action.RoutingCalculator;
import io.github.esrel.plugin.routing.action.TransportHypotheticalRoutingCalcAction;
import io.github.esrel.plugin.routing.action.TransportRoutingCalcAction;
import io.github.esrel.plugin.routing.rest.RestRoutingCalcAction;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.elasticsearch.action.ActionRequest;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.action.ActionType;
import org.elasticsearch.action.support.TransportAction;
import org.elasticsearch.common.settings.Setting;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.indices.SystemIndexDescriptor;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.SystemIndexPlugin;
import org.elasticsearch.rest.RestHandler;

/**
 * The wiring every Elasticsearch line shares. The two registrations whose signatures differ between lines
 * build on the lists below, each in its own compat folder: {@code getActions} in {@code EsrelPluginActions}
 * ({@code src/main/compat/plugin-actions-*}: a generic {@code ActionHandler} before 9.1) and
 * {@code getRestHandlers} in {@code EsrelPlugin} itself ({@code src/main/compat/plugin-rest-*}: a shorter
 * signature from 9.5).
 */
public abstract class EsrelPluginBase extends Plugin implements SystemIndexPlugin {

    /** Creates the plugin; only {@code EsrelPlugin}, the class Elasticsearch instantiates, extends it (through {@code EsrelPluginActions}). */
    public EsrelPluginBase() {}

    @Override
    public Collection<?> createComponents(PluginServices services) {
        Settings settings = services.environment().settings();
        // Bound by Guice by their classes, so the transport actions get them injected.
        return List.of(
                RoutingCalculator.fromSettings(settings),
                ClusterIndices.Reader.create(services),
                new TreeLockService(
                        services.client(),
                        services.threadPool(),
                        services.clusterService().getClusterSettings(),
                        settings));
    }

    @Override
    public List<Setting<?>> getSettings() {
        List<Setting<?>> settings = new ArrayList<>();
        settings.add(RoutingCalculator.MAX_BATCH_DOCS_SETTING);
        settings.addAll(TreeLockSettings.all());
        return settings;
    }

    /** Builds one server line's action handler from an action and its transport action ({@code ActionHandler::new}). */
    protected interface HandlerFactory<H> {
        <Req extends ActionRequest, Resp extends ActionResponse> H handler(
                ActionType<Resp> action, Class<? extends TransportAction<Req, Resp>> transportAction);
    }

    /** The plugin's actions, each built by {@code factory}. */
    protected final <H> List<H> actions(HandlerFactory<H> factory) {
        return List.of(
                factory.handler(RoutingCalcAction.INSTANCE, TransportRoutingCalcAction.class),
                factory.handler(HypotheticalRoutingCalcAction.INSTANCE, TransportHypotheticalRoutingCalcAction.class),
                factory.handler(AcquireTreeLockAction.INSTANCE, TransportAcquireTreeLockAction.class),
                factory.handler(ReleaseTreeLockAction.INSTANCE, TransportReleaseTreeLockAction.class),
                factory.handler(RenewTreeLockAction.INSTANCE, TransportRenewTreeLockAction.class),
                factory.handler(ListTreeLocksAction.INSTANCE, TransportListTreeLocksAction.class),
                factory.handler(OverrideTreeLockBindingAction.INSTANCE, TransportOverrideTreeLockBindingAction.class));
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
                new RestListTreeLocksAction());
    }
}
