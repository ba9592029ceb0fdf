package io.github.esrel.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.lock.TreeLocks;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every rule of the health verdict, on answers shaped as Elasticsearch's ({@code _nodes/plugins},
 * {@code _cluster/health?level=indices}): the cluster a test node cannot be (a node without the plugin, a red index).
 */
class HealthProbeAssessTest {

    private static final JsonObject BOTH_NODES_WITH_PLUGIN = json("{'nodes':{"
            + "'n1':{'name':'es-1','plugins':[{'name':'esrel','version':'0.1.0'}]},"
            + "'n2':{'name':'es-2','plugins':[{'name':'other','version':'1'},{'name':'esrel','version':'0.1.0'}]}}}");
    private static final JsonObject ONE_NODE_WITHOUT_PLUGIN = json("{'nodes':{"
            + "'n1':{'name':'es-1','plugins':[{'name':'esrel','version':'0.1.0'}]},"
            + "'n2':{'name':'es-2','plugins':[]}}}");
    private static final JsonObject NO_PLUGIN = json("{'nodes':{'n1':{'name':'es-1','plugins':[]}}}");

    private static JsonObject health(String index, String status) {
        return json("{'status':'green','indices':{'" + index + "':{'status':'" + status + "'}}}");
    }

    private static final JsonObject NO_INDEX = json("{'status':'green','indices':{}}");

    @Test
    void shouldBeUpWithoutATreeLocksBeanWhateverThePlugin() {
        HealthReport check = HealthProbe.assess(NO_PLUGIN, null, null, null, null);
        assertThat(check.up()).isTrue();
        assertThat(plugin(check)).containsEntry("nodes", 1).containsEntry("withPlugin", 0);
    }

    @Test
    void shouldBeUpOnThePluginWithItsLockIndexGreenOrYellow() {
        for (String status : new String[] {"green", "yellow"}) {
            HealthReport check = HealthProbe.assess(
                    BOTH_NODES_WITH_PLUGIN,
                    TreeLocks.Backend.PLUGIN,
                    "fs",
                    ".esrel-treelocks-*",
                    health(".esrel-treelocks-1", status));
            assertThat(check.up()).isTrue();
            assertThat(plugin(check)).containsEntry("withPlugin", 2).containsEntry("version", "0.1.0");
            assertThat(locks(check))
                    .containsEntry("provider", "PLUGIN")
                    .containsEntry("lockIndex", ".esrel-treelocks-1")
                    .containsEntry("lockIndexStatus", status);
        }
    }

    @Test
    void shouldBeUpBeforeTheFirstLockCreatedTheLockIndex() {
        HealthReport check = HealthProbe.assess(
                BOTH_NODES_WITH_PLUGIN, TreeLocks.Backend.PLUGIN, "fs", ".esrel-treelocks-*", NO_INDEX);
        assertThat(check.up()).isTrue();
        assertThat(locks(check).get("lockIndexStatus").toString()).startsWith("not created yet");
    }

    @Test
    void shouldBeDownWhenTheLocksUseThePluginAndANodeLacksIt() {
        HealthReport check = HealthProbe.assess(
                ONE_NODE_WITHOUT_PLUGIN,
                TreeLocks.Backend.PLUGIN,
                "fs",
                ".esrel-treelocks-*",
                health(".esrel-treelocks-1", "green"));
        assertThat(check.up()).isFalse();
        assertThat(plugin(check).get("missing")).isEqualTo(java.util.List.of("es-2"));
        assertThat(locks(check).get("error").toString()).contains("es-2");
    }

    @Test
    void shouldBeUpOnLockDocumentsWhenNodesLackThePlugin() {
        HealthReport check = HealthProbe.assess(
                ONE_NODE_WITHOUT_PLUGIN,
                TreeLocks.Backend.DOCUMENTS,
                "fs",
                "esrel-treelocks",
                json("{'indices':{'esrel-treelocks-old':{'status':'red'},'esrel-treelocks':{'status':'green'}}}"));
        assertThat(check.up()).isTrue();
        assertThat(locks(check))
                .containsEntry("lockIndex", "esrel-treelocks")
                .containsEntry("lockIndexStatus", "green");
    }

    @Test
    void shouldBeDownWhenTheLockIndexIsRed() {
        HealthReport check = HealthProbe.assess(
                NO_PLUGIN, TreeLocks.Backend.DOCUMENTS, "fs", "esrel-treelocks", health("esrel-treelocks", "red"));
        assertThat(check.up()).isFalse();
        assertThat(locks(check)).containsEntry("lockIndexStatus", "red");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> plugin(HealthReport check) {
        return (Map<String, Object>) check.details().get("plugin");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> locks(HealthReport check) {
        return (Map<String, Object>) check.details().get("locks");
    }

    private static JsonObject json(String singleQuoted) {
        try (var reader = Json.createReader(new StringReader(singleQuoted.replace('\'', '"')))) {
            return reader.readObject();
        }
    }
}
