package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ElasticsearchYmlTest {

    private static final Path DATA = Path.of("/w/node-0/data");
    private static final Path LOGS = Path.of("/w/node-0/logs");

    @Test
    void shouldRenderASingleNodeCluster() {
        String yml = ElasticsearchYml.render(
                "esrel-1", 0, List.of(new NodePorts(12001, 12002)), DATA, LOGS, Map.of(), Map.of());

        assertThat(yml.lines())
                .contains(
                        "cluster.name: \"esrel-1\"",
                        "node.name: \"node-0\"",
                        "network.host: \"127.0.0.1\"",
                        "http.port: \"12001\"",
                        "transport.port: \"12002\"",
                        "path.data: \"/w/node-0/data\"",
                        "path.logs: \"/w/node-0/logs\"",
                        "discovery.type: \"single-node\"",
                        "xpack.security.enabled: \"false\"");
        assertThat(yml).doesNotContain("seed_hosts").doesNotContain("initial_master_nodes");
    }

    @Test
    void shouldMakeEveryNodeOfALargerClusterFindTheOthers() {
        List<NodePorts> ports =
                List.of(new NodePorts(12001, 12002), new NodePorts(12003, 12004), new NodePorts(12005, 12006));

        String yml = ElasticsearchYml.render("esrel-3", 1, ports, DATA, LOGS, Map.of(), Map.of());

        assertThat(yml.lines())
                .contains(
                        "node.name: \"node-1\"",
                        "http.port: \"12003\"",
                        "transport.port: \"12004\"",
                        "discovery.seed_hosts: \"127.0.0.1:12002,127.0.0.1:12004,127.0.0.1:12006\"",
                        "cluster.initial_master_nodes: \"node-0,node-1,node-2\"");
        assertThat(yml).doesNotContain("discovery.type");
    }

    @Test
    void shouldLetUserSettingsOverrideDefaultsAndQuoteThem() {
        String yml = ElasticsearchYml.render(
                "esrel-1",
                0,
                List.of(new NodePorts(12001, 12002)),
                DATA,
                LOGS,
                Map.of(),
                Map.of("action.destructive_requires_name", "true", "node.attr.note", "say \"hi\"\\"));

        assertThat(yml.lines())
                .contains("action.destructive_requires_name: \"true\"", "node.attr.note: \"say \\\"hi\\\"\\\\\"")
                .doesNotContain("action.destructive_requires_name: \"false\"");
    }

    @Test
    void shouldTurnSecurityOnWithTheFileRealmAndHttpsForASecuredCluster() {
        Security security = Security.of(s -> s.user("writer", "writer-pw", "superuser"));
        String yml = ElasticsearchYml.render(
                "esrel-1",
                0,
                List.of(new NodePorts(12001, 12002)),
                DATA,
                LOGS,
                SecurityFiles.settings(security),
                Map.of());

        assertThat(yml.lines())
                .contains(
                        "xpack.security.enabled: \"true\"",
                        "xpack.security.authc.realms.file.file1.order: \"0\"",
                        "xpack.security.http.ssl.enabled: \"true\"",
                        "xpack.security.http.ssl.certificate_authorities: \"certs/ca/ca.crt\"")
                .doesNotContain("xpack.security.enabled: \"false\"");
    }
}
