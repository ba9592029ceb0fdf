package io.github.esrel.plugin.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RoutingFunctionTypeTest {

    @Test
    void shouldChooseTheFunctionByTheCreatingRelease() {
        assertThat(RoutingFunctionType.forRelease(ReleaseVersion.parse("v", "7.17.0")))
                .isEqualTo(RoutingFunctionType.LEGACY);
        assertThat(RoutingFunctionType.forRelease(ReleaseVersion.parse("v", "8.19.21")))
                .isEqualTo(RoutingFunctionType.LEGACY);
        assertThat(RoutingFunctionType.forRelease(ReleaseVersion.parse("v", "9.3.99")))
                .isEqualTo(RoutingFunctionType.LEGACY);
        assertThat(RoutingFunctionType.forRelease(ReleaseVersion.parse("v", "9.4.0")))
                .isEqualTo(RoutingFunctionType.MODULO);
        assertThat(RoutingFunctionType.forRelease(ReleaseVersion.parse("v", "9.5.3-SNAPSHOT")))
                .isEqualTo(RoutingFunctionType.MODULO);
        assertThat(RoutingFunctionType.forRelease(ReleaseVersion.parse("v", "9.10.0")))
                .as("numeric, not lexical")
                .isEqualTo(RoutingFunctionType.MODULO);
    }

    @Test
    void shouldParseNamesAndVersionsStrictly() {
        assertThat(RoutingFunctionType.fromJsonName("legacy")).isEqualTo(RoutingFunctionType.LEGACY);
        assertThat(RoutingFunctionType.MODULO.jsonName()).isEqualTo("modulo");
        assertThatThrownBy(() -> RoutingFunctionType.fromJsonName("MODULO"))
                .hasMessage("routing_function must be [legacy] or [modulo], got [MODULO]");
        for (String bad : new String[] {"9", "9.5", "9.5.3.1", "v9.5.3", " 9.5.3", "9.5.x", "99999.0.0", ""}) {
            assertThatThrownBy(() -> ReleaseVersion.parse("index_version", bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("index_version must be an Elasticsearch release version like [8.19.0] or [9.5.3], got ["
                            + bad + "]");
        }
        assertThat(ReleaseVersion.parse("v", "8.19.0")).hasToString("8.19.0");
    }
}
